// The libclang index of generator sources: classes, objects, methods and their ranges.
#include <catch2/catch.hpp>

#include "lsp/clang_indexer.h"
#include "test_support.h"

using namespace hlsched::server::lsp;
using namespace hlsched::server::testing;
using Kind = DeclaredObject::Kind;

namespace {

const ClangIndexer &indexer() {
  static ClangIndexer instance(ClangIndexerOptions{test_cache_dir(), {}, true});
  return instance;
}

SourceIndex index_text(const std::string &path, const std::string &text) { return indexer().index(path, text, 1, 0, {}); }

std::string text_of(const SourceIndex &index, ByteRange r) { return index.text.substr(r.begin, r.end - r.begin); }

const DeclaredObject &object(const GeneratorClass &g, const std::string &identifier) {
  for (const DeclaredObject &o : g.objects)
    if (o.identifier == identifier) return o;
  FAIL("no object " << identifier);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("the blur example: class, registration, objects, methods", "[index]") {
  const auto path = source_path("examples/blur/blur_generator.cpp");
  SourceIndex index = index_text(path.string(), read_file(path));
  INFO((index.errors.empty() ? std::string() : index.errors.front()));
  CHECK_FALSE(index.has_errors);
  REQUIRE(index.generators.size() == 1);
  const GeneratorClass &g = index.generators[0];
  CHECK(g.class_name == "Blur");
  CHECK(g.registered_name == "blur");
  CHECK(text_of(index, g.name) == "Blur");
  CHECK(text_of(index, g.definition).rfind("class Blur", 0) == 0);
  CHECK(g.member_indent == "    ");

  CHECK(object(g, "blur_x").kind == Kind::Func);
  CHECK(object(g, "blur_x").halide_name == "blur_x");
  CHECK(object(g, "blur_x").is_member);
  CHECK(object(g, "input").kind == Kind::Input);
  CHECK(object(g, "output").kind == Kind::Output);
  CHECK(object(g, "output").pipeline_name() == "output");
  CHECK(object(g, "schedule_kind").kind == Kind::GeneratorParam);
  CHECK(object(g, "xo").kind == Kind::Var);
  const DeclaredObject &clamped = object(g, "clamped");
  CHECK(clamped.kind == Kind::Func);
  CHECK_FALSE(clamped.is_member);
  CHECK(clamped.halide_name.empty());  // named by BoundaryConditions, not by the source
  CHECK(text_of(index, clamped.name) == "clamped");

  REQUIRE(g.generate);
  REQUIRE(g.generate->body);
  CHECK(text_of(index, *g.generate->body).find("blur_x(x, y) =") != std::string::npos);
  REQUIRE(g.schedule);
  REQUIRE(g.schedule->statements.size() == 3);
  CHECK(g.schedule->statement_sets_estimates == std::vector<bool>{true, true, false});
  CHECK(text_of(index, g.schedule->statements[0]) == "input.set_estimates({{0, 1920}, {0, 1080}});");
  CHECK(text_of(index, g.schedule->statements[2]).rfind("if (schedule_kind", 0) == 0);
  // A new method would go right after generate()'s closing brace.
  CHECK(index.text[g.new_method_offset - 1] == '}');
  CHECK(g.generate->declaration.end == g.new_method_offset);

  // Lookups.
  CHECK(g.find_func("blur_x") == &object(g, "blur_x"));
  CHECK(index.find_generator("blur") == &g);
  CHECK(index.find_generator("Blur") == &g);
  CHECK(index.generator_at(g.name.begin) == &g);
}

TEST_CASE("a source with two generators and locals named by their initializers", "[index]") {
  const auto two = source_path("tests/data/bad_generators/two_generators.cpp");
  SourceIndex index = index_text(two.string(), read_file(two));
  REQUIRE(index.generators.size() == 2);
  CHECK(index.generators[0].registered_name == "brighten");
  CHECK(index.generators[1].registered_name == "darken");
  CHECK(index.find_generator("") == nullptr);  // ambiguous
  CHECK(index.find_generator("darken") == &index.generators[1]);

  const auto stencil = source_path("tests/data/generators/stencil_chain_small.cpp");
  SourceIndex s = index_text(stencil.string(), read_file(stencil));
  REQUIRE(s.generators.size() == 1);
  const GeneratorClass &g = s.generators[0];
  CHECK(object(g, "blur_y").halide_name == "blur_y");
  CHECK_FALSE(object(g, "blur_y").is_member);
  CHECK(object(g, "gain").kind == Kind::Input);
  // A local in generate() shadows nothing here, but is found in its scope.
  CHECK(g.find_identifier("blur_y", object(g, "blur_y").name.begin) == &object(g, "blur_y"));
}

TEST_CASE("a broken source still yields its generator", "[index]") {
  const auto path = source_path("examples/blur/blur_generator.cpp");
  std::string text = read_file(path);
  const std::string anchor = "blur_x(x, y) =";
  text.insert(text.find(anchor), "this is not C++ ( ;\n        ");
  SourceIndex index = index_text(path.string(), text);
  CHECK(index.has_errors);
  REQUIRE(index.generators.size() == 1);
  CHECK(index.generators[0].class_name == "Blur");
  CHECK(index.generators[0].find_func("output") != nullptr);
}

TEST_CASE("out-of-line methods and a generator without schedule()", "[index]") {
  const std::string text = R"(#include "Halide.h"
using namespace Halide;
struct Outside : Generator<Outside> {
    Input<Buffer<float, 1>> in{"in"};
    Output<Buffer<float, 1>> out{"out"};
    void generate();
    Var x;
};
void Outside::generate() {
    Func twice("twice");
    twice(x) = in(x) * 2;
    out(x) = twice(x);
}
HALIDE_REGISTER_GENERATOR(Outside, outside)
)";
  SourceIndex index = index_text("/tmp/outside_generator.cpp", text);
  INFO((index.errors.empty() ? std::string() : index.errors.front()));
  REQUIRE(index.generators.size() == 1);
  const GeneratorClass &g = index.generators[0];
  CHECK(g.registered_name == "outside");
  REQUIRE(g.generate);
  REQUIRE(g.generate->body);
  CHECK(text.substr(g.generate->body->begin, 1) == "{");
  CHECK_FALSE(g.schedule);
  CHECK(object(g, "twice").halide_name == "twice");
  // New methods go after the in-class declaration "void generate();".
  CHECK(text.substr(g.new_method_offset - 16, 16) == "void generate();");
}

TEST_CASE("generate()'s statements are classified, with the branches of ifs", "[index]") {
  const std::string text = R"(#include "Halide.h"
using namespace Halide;
struct Scheduled : Generator<Scheduled> {
    Input<Buffer<float, 1>> in{"in"};
    Output<Buffer<float, 1>> out{"out"};
    void generate() {
        Func twice("twice");
        twice(x) = in(x) * 2;
        out(x) = twice(x);
        out.set_estimates({{0, 1024}});
        if (get_target().has_gpu_feature()) {
            Var xo, xi;
            out.gpu_tile(x, xo, xi, 64);
        } else if (auto_schedule)
            twice.compute_root();
        Func intm = out.update(0).rfactor(x, xo);
    }
    Var x;
};
HALIDE_REGISTER_GENERATOR(Scheduled, scheduled)
)";
  SourceIndex index = index_text("/tmp/scheduled_generator.cpp", text);
  REQUIRE(index.generators.size() == 1);
  const MethodInfo &generate = *index.generators[0].generate;
  using K = BodyStatement::Kind;
  const std::vector<BodyStatement> &body = generate.body_statements;
  REQUIRE(body.size() == 6);
  CHECK(body[0].kind == K::Other);  // Func twice("twice");
  CHECK(body[1].kind == K::Other);  // a definition
  CHECK(body[2].kind == K::Other);
  CHECK(body[3].kind == K::Estimates);
  REQUIRE(body[4].kind == K::If);
  CHECK(body[4].condition == "get_target().has_gpu_feature()");
  REQUIRE(body[4].then_branch.size() == 2);
  CHECK(body[4].then_branch[0].kind == K::Other);  // Var xo, xi;
  CHECK(body[4].then_branch[1].kind == K::Directive);
  CHECK(text_of(index, body[4].then_branch[1].range) == "out.gpu_tile(x, xo, xi, 64);");
  REQUIRE(body[4].else_branch.size() == 1);  // else if: one statement, itself an if
  const BodyStatement &else_if = body[4].else_branch[0];
  REQUIRE(else_if.kind == K::If);
  CHECK(else_if.condition == "auto_schedule");
  REQUIRE(else_if.then_branch.size() == 1);  // without braces
  CHECK(else_if.then_branch[0].kind == K::Directive);
  CHECK(body[5].kind == K::Directive);  // a Func declared by rfactor
  // Each branch's place (the cursor's branch is the one a code action replaces).
  CHECK(text_of(index, body[4].then_range).rfind("{\n            Var xo, xi;", 0) == 0);
  CHECK(text_of(index, body[4].else_range).rfind("if (auto_schedule)", 0) == 0);
  CHECK(text_of(index, else_if.then_range) == "twice.compute_root();");
  CHECK(else_if.else_range.empty());
}

TEST_CASE("identifier_at", "[index]") {
  ByteRange r;
  CHECK(identifier_at("  blur_x(x, y)", 4, &r) == "blur_x");
  CHECK(r == ByteRange{2, 8});
  CHECK(identifier_at("  blur_x(x, y)", 2) == "blur_x");
  CHECK(identifier_at("  blur_x(x, y)", 8) == "blur_x");  // just after the word
  CHECK(identifier_at("a + 12", 5).empty());
  CHECK(identifier_at("", 0).empty());
}
