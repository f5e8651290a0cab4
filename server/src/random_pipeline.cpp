// The random pipeline writer's core: sizes, inputs, choosing producers, reading them, random
// arithmetic, the obligations of each step, and the generated file. See random_pipeline_writer.h
// for how the writer works; the kinds of stages are in random_pipeline_steps.cpp.
#include "random_pipeline.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "random_pipeline_writer.h"

namespace hlsched::server::random_pipeline {

namespace {

std::string replace_all(std::string text, const std::string &from, const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

std::string PipelineWriter::write() {
  choose_base_size();
  add_inputs();
  for (step_ = 1; step_ <= options_.stages; step_++) add_step();
  return source();
}

void PipelineWriter::choose_base_size() {
  static const std::vector<std::vector<std::pair<int64_t, int64_t>>> tiers = {
      {{8, 8}, {16, 12}, {24, 16}, {32, 32}, {64, 48}},                          // tiny
      {{128, 128}, {160, 120}, {256, 256}, {320, 240}},                          // small
      {{512, 512}, {640, 480}, {1024, 768}, {1280, 720}},                        // medium
      {{1536, 2560}, {1920, 1080}, {2048, 2048}, {2560, 1440}, {3840, 2160}},    // large
      {{7680, 4320}, {4320, 7680}, {8192, 4096}},                                // 8K
  };
  const auto &tier = tiers[rng_.weighted({14, 18, 30, 28, 10})];
  base_ = rng_.pick(tier);
}

Elem PipelineWriter::random_image_type() {
  static const std::vector<Elem> types = {Elem::U8, Elem::U16, Elem::I16, Elem::I32, Elem::F32, Elem::F64};
  return types[rng_.weighted({32, 20, 10, 6, 29, 3})];
}

// Channels for an image of w x h points, within kMaxPoints.
int64_t PipelineWriter::random_channels(int64_t w, int64_t h, bool layer) {
  static const std::vector<int64_t> options = {3, 4, 2, 8, 16, 32};
  int64_t c = options[layer ? rng_.weighted({15, 15, 5, 25, 25, 15}) : rng_.weighted({45, 30, 8, 8, 5, 4})];
  while (c > 2 && w * h * c > kMaxPoints) c /= 2;
  return c;
}

void PipelineWriter::add_inputs() {
  const int max_inputs = std::min(3, options_.stages);
  const int count = std::min<int>(max_inputs, 1 + int(rng_.weighted({50, 35, 15})));
  for (int k = 0; k < count; k++) {
    Node in;
    in.name = "in" + str(k);
    in.is_input = true;
    if (k > 0 && rng_.percent(20)) {
      // A lookup table given by the caller (a tone curve, a palette).
      in.shape = {{Role::I, rng_.pick(std::vector<int64_t>{256, 1024, 4096})}};
      in.type = rng_.pick(std::vector<Elem>{Elem::U8, Elem::U16, Elem::F32, Elem::I32});
      in.reader = in.name + "_edge";
      in.lines.push_back("Func " + in.reader + " = BoundaryConditions::repeat_edge(" + in.name + ");");
      in.summary = "input lookup table";
    } else {
      auto [w, h] = base_;
      if (k > 0) {
        switch (rng_.weighted({60, 15, 25})) {
          case 0: break;
          case 1: w = std::max<int64_t>(1, w / 2), h = std::max<int64_t>(1, h / 2); break;
          default: w = rng_.between(1, 64) * 32, h = rng_.between(1, 64) * 16; break;
        }
      }
      const bool color = rng_.percent(k == 0 ? 35 : 25);
      in.shape = image_shape(w, h, color ? random_channels(w, h) : 0);
      in.type = random_image_type();
      input_boundary_condition(in);
    }
    nodes_.push_back(in);
  }
}

// Inputs are only ever read through a boundary condition, so any coordinate is in bounds
// whatever size the caller's buffer has.
void PipelineWriter::input_boundary_condition(Node &in) {
  const bool interior_ok = in.shape[0].extent >= 2 && in.shape[1].extent >= 2;
  switch (rng_.weighted({40, 20, interior_ok ? 15 : 0, 25})) {
    case 0:
      in.reader = in.name + "_edge";
      in.lines.push_back("Func " + in.reader + " = BoundaryConditions::repeat_edge(" + in.name + ");");
      in.summary = "input, edges repeated";
      break;
    case 1:
      in.reader = in.name + "_mirror";
      in.lines.push_back("Func " + in.reader + " = BoundaryConditions::mirror_image(" + in.name + ");");
      in.summary = "input, mirrored at the edges";
      break;
    case 2:
      in.reader = in.name + "_mirror";
      in.lines.push_back("Func " + in.reader + " = BoundaryConditions::mirror_interior(" + in.name + ");");
      in.summary = "input, mirrored inside the edges";
      break;
    default:
      in.reader = in.name + "_padded";
      in.lines.push_back("Func " + in.reader + " = BoundaryConditions::constant_exterior(" + in.name + ", cast<" +
                         cpp_type(in.type) + ">(0));");
      in.summary = "input, zero outside";
      break;
  }
}

// A producer accepted by `ok` and not in `exclude`: an input nothing reads yet first; else
// usually a node nothing reads yet (so the DAG stays connected); else a recent node.
std::optional<size_t> PipelineWriter::pick(const Filter &ok, const std::vector<size_t> &exclude) {
  std::vector<size_t> fits, unread_inputs, unread;
  for (size_t i = 0; i < nodes_.size(); i++) {
    if (!ok(nodes_[i]) || std::count(exclude.begin(), exclude.end(), i)) continue;
    fits.push_back(i);
    if (nodes_[i].uses == 0) (nodes_[i].is_input ? unread_inputs : unread).push_back(i);
  }
  if (fits.empty()) return std::nullopt;
  if (!unread_inputs.empty()) return unread_inputs.front();
  if (!unread.empty() && rng_.percent(60)) return rng_.pick(unread);
  if (rng_.percent(60)) return fits[size_t(rng_.between(std::max<int64_t>(0, int64_t(fits.size()) - 4), int64_t(fits.size()) - 1))];
  return rng_.pick(fits);
}

std::vector<size_t> PipelineWriter::unread_nodes(bool inputs) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < nodes_.size(); i++)
    if (nodes_[i].uses == 0 && nodes_[i].is_input == inputs) out.push_back(i);
  return out;
}

// A new Func for this step, named after what it does ("blur_3"). `nodes_` is a deque, so
// references to earlier nodes stay valid.
Node &PipelineWriter::define(const std::string &stem, Elem type, Shape shape, const std::string &summary,
                             const std::vector<size_t> &producers) {
  for (size_t p : producers) nodes_[p].uses++;
  Node n;
  n.name = stem + "_" + str(step_);
  n.reader = n.name;
  n.type = type;
  n.shape = std::move(shape);
  n.summary = summary;
  nodes_.push_back(std::move(n));
  return nodes_.back();
}

// `p` read at the point of a consumer with shape `at`. Dims of the same role are rescaled
// into p's domain; an x profile read by a y profile (or the reverse) is read crosswise; other
// dims the consumer lacks read p's middle; a table dim reads `index` (a clamped expression),
// or rescales the consumer's own table index.
std::string PipelineWriter::read(const Node &p, const Shape &at, const std::string &index) const {
  std::string out = p.reader + "(";
  for (size_t d = 0; d < p.shape.size(); d++) {
    const Dim &dim = p.shape[d];
    const Dim *mine = find_role(at, dim.role);
    std::string coordinate;
    // A profile along one axis read by a profile along the other: crosswise.
    const Role other = dim.role == Role::X ? Role::Y : Role::X;
    const Dim *crosswise = (dim.role == Role::X || dim.role == Role::Y) && !find_role(p.shape, other)
                               ? find_role(at, other)
                               : nullptr;
    if (dim.role == Role::I && !index.empty()) coordinate = index;
    else if (mine) coordinate = rescaled(var_name(dim.role), mine->extent, dim.extent);
    else if (crosswise) coordinate = rescaled(var_name(other), crosswise->extent, dim.extent);
    else coordinate = str(dim.extent / 2);
    out += (d ? ", " : "") + coordinate;
  }
  return out + ")";
}

// p's own coordinates with (dx, dy) added to x and y: for stencils.
std::string PipelineWriter::offset_args(const Shape &shape, const std::string &dx, const std::string &dy) {
  std::string out;
  for (size_t d = 0; d < shape.size(); d++) {
    std::string v = var_name(shape[d].role);
    if (shape[d].role == Role::X) v = dx;
    if (shape[d].role == Role::Y) v = dy;
    out += (d ? ", " : "") + v;
  }
  return out;
}

std::string PipelineWriter::rvar(size_t d, size_t count) {
  if (count == 1) return "r";
  static const char *names[] = {"r.x", "r.y", "r.z", "r.w"};
  return names[d];
}

// `e` (of type `from`) converted to `to`: saturating from floats (no undefined float->int
// casts), wrapping or saturating between integers.
std::string PipelineWriter::convert(Elem to, Elem from, const std::string &e) {
  if (to == from) return e;
  if (is_float(to)) return cast_to(to, from, e);
  if (is_float(from) || rng_.percent(50)) return std::string("saturating_cast<") + cpp_type(to) + ">(" + e + ")";
  return cast_to(to, from, e);
}

Elem PipelineWriter::working_type(const std::vector<Elem> &types) {
  for (Elem t : types)
    if (is_float(t)) return Elem::F32;
  return Elem::I32;
}

Elem PipelineWriter::result_type(Elem keep) { return rng_.percent(55) ? keep : random_image_type(); }

// A clamped table index from a value: index_of() (emitted once at the top of the file)
// scales it so the type's usual range covers the table, clamps in float (NaN and infinities
// included), then clamps the integer for bounds inference.
std::string PipelineWriter::index_of(const std::string &value, Elem type, int64_t size) {
  uses_index_of_ = true;
  double scale = 1;
  switch (type) {
    case Elem::U8: scale = double(size) / 256; break;
    case Elem::U16: scale = double(size) / 65536; break;
    case Elem::I16: scale = double(size) / 32768; break;
    case Elem::I32: scale = rng_.pick(std::vector<double>{1, 1.0 / 16, 1.0 / 256}); break;
    default: scale = double(size) / rng_.pick(std::vector<double>{1, 16, 256}); break;
  }
  return "index_of(" + value + ", " + float_literal(scale) + ", " + str(size) + ")";
}

std::string PipelineWriter::constant(bool fl, const std::vector<double> &floats, const std::vector<int> &ints) {
  return fl ? float_literal(rng_.pick(floats)) : str(rng_.pick(ints));
}

std::string PipelineWriter::unary(const std::string &a, bool fl) {
  static const std::vector<std::string> int_ops = {"($a * $k)", "($a / $d)", "($a >> $s)", "($a % $m)",
                                                   "clamp($a, $lo, $hi)", "max($a, 0)",
                                                   "cast<int32_t>(abs($a))", "($a & $mask)"};
  static const std::vector<std::string> float_ops = {"($a * $k)", "abs($a)", "sqrt(abs($a))", "floor($a)",
                                                     "clamp($a, $lo, $hi)", "max($a, 0.0f)", "sin($a)",
                                                     "exp(-abs($a))", "log(abs($a) + 1.0f)"};
  std::string op = rng_.pick(fl ? float_ops : int_ops);
  op = replace_all(op, "$k", constant(fl, {0.5, 1.5, -1, 0.25, 2}, {2, 3, -1, -2, 5}));
  op = replace_all(op, "$d", str(rng_.between(2, 8)));  // integer division by a positive constant only
  op = replace_all(op, "$s", str(rng_.between(1, 4)));
  op = replace_all(op, "$mask", rng_.pick(std::vector<std::string>{"15", "255", "1023"}));  // before $m
  op = replace_all(op, "$m", str(rng_.between(3, 17)));
  op = replace_all(op, "$lo", constant(fl, {-1, 0}, {-255, 0}));
  op = replace_all(op, "$hi", constant(fl, {1, 255}, {255, 1023, 65535}));
  return replace_all(op, "$a", a);
}

std::string PipelineWriter::binary(const std::string &a, const std::string &b, bool fl) {
  static const std::vector<std::string> int_ops = {"($a + $b)", "($a - $b)", "min($a, $b)", "max($a, $b)",
                                                   "(($a + $b) / 2)", "($a * $k + $b)",
                                                   "cast<int32_t>(absd($a, $b))", "($a ^ $b)"};
  static const std::vector<std::string> float_ops = {"($a + $b)", "($a - $b)", "min($a, $b)", "max($a, $b)",
                                                     "(($a + $b) * 0.5f)", "($a * $k + $b)",
                                                     "($a / (abs($b) + 1.0f))",  // never divides by zero
                                                     "lerp($a, $b, 0.25f)", "atan2($a, $b)",
                                                     "($a * clamp($b, -1.0f, 1.0f))"};
  std::string op = rng_.pick(fl ? float_ops : int_ops);
  op = replace_all(op, "$k", constant(fl, {0.5, 1.5, -0.75, 2}, {2, 3, -1, 4}));
  op = replace_all(op, "$a", a);
  return replace_all(op, "$b", b);
}

// One expression using each leaf exactly once (so inlining chains of pointwise Funcs stays
// linear in size), with a few unary operations along the way.
std::string PipelineWriter::combine(std::vector<std::string> leaves, bool fl) {
  const bool single = leaves.size() == 1;
  auto take = [&]() {
    size_t k = size_t(rng_.between(0, int64_t(leaves.size()) - 1));
    std::string leaf = leaves[k];
    leaves.erase(leaves.begin() + long(k));
    return leaf;
  };
  while (leaves.size() > 1) {
    std::string combined;
    if (leaves.size() >= 3 && rng_.percent(15)) {
      std::string a = take(), b = take(), c = take();
      combined = "select(" + a + " > " + b + ", " + c + ", " + (fl ? "0.0f" : "0") + ")";
    } else {
      std::string a = take(), b = take();
      combined = binary(a, b, fl);
    }
    if (rng_.percent(25)) combined = unary(combined, fl);
    leaves.push_back(combined);
  }
  // A lone operand always gets some arithmetic.
  if (single || rng_.percent(40)) leaves[0] = unary(leaves[0], fl);
  if (single && rng_.percent(50)) leaves[0] = unary(leaves[0], fl);
  return leaves[0];
}

void PipelineWriter::add_step() {
  std::vector<size_t> unread = unread_nodes(/*inputs=*/false);
  std::vector<size_t> scalars;
  for (size_t n : unread)
    if (kind_of(nodes_[n].shape) == ShapeKind::Scalar) scalars.push_back(n);
  // Obligations: scalars are read at once (they cannot be outputs); every input is read by the
  // end; many unread nodes are merged instead of all becoming outputs.
  if (!scalars.empty()) return pointwise(scalars);
  std::vector<size_t> unread_inputs = unread_nodes(/*inputs=*/true);
  const bool last = step_ == options_.stages;
  if (last && !unread_inputs.empty() && (unread_inputs.size() > 1 || !is_image(nodes_[unread_inputs[0]])))
    return pointwise(unread_inputs);
  if (unread.size() >= 4) return pointwise(std::vector<size_t>(unread.end() - 3, unread.end()));

  bool unread_table = false;
  for (const Node &n : nodes_) unread_table = unread_table || (n.uses == 0 && is_table(n));
  // In StepKind order: pointwise, stencil, down, up, transpose, reduce, scan, histogram,
  // make_table, lookup, warp, channel_mix, matmul.
  std::vector<int> weights = {18, 20, 7, 6, 5, 9, 5, 6, 3, unread_table ? 30 : 7, 5, 5, 2};
  if (last && !unread_inputs.empty()) {
    // One image input nothing reads yet: only kinds whose first producer is any image (pick()
    // then takes that input).
    for (StepKind k : {StepKind::MakeTable, StepKind::Lookup, StepKind::MatMul}) weights[size_t(k)] = 0;
  }
  for (int attempt = 0; attempt < 20; attempt++) {
    bool done = false;
    switch (StepKind(rng_.weighted(weights))) {
      case StepKind::Pointwise: pointwise({}); done = true; break;
      case StepKind::Stencil: done = stencil(); break;
      case StepKind::Downsample: done = downsample(); break;
      case StepKind::Upsample: done = upsample(); break;
      case StepKind::Transpose: done = transpose(); break;
      case StepKind::Reduce: done = reduce(); break;
      case StepKind::Scan: done = scan(); break;
      case StepKind::Histogram: done = histogram(); break;
      case StepKind::MakeTable: done = make_table(); break;
      case StepKind::Lookup: done = lookup(); break;
      case StepKind::Warp: done = warp(); break;
      case StepKind::ChannelMix: done = channel_mix(); break;
      case StepKind::MatMul: done = matmul(); break;
    }
    if (done) return;
  }
  pointwise({});
}

std::string PipelineWriter::source() const {
  std::vector<const Node *> inputs, outputs;
  for (const Node &n : nodes_) {
    if (n.is_input) inputs.push_back(&n);
    else if (n.uses == 0) outputs.push_back(&n);
  }
  std::ostringstream out;
  out << "// A random Halide pipeline for training and stress tests, written by\n"
      << "//   hlsched random-pipeline --seed " << options_.seed << " --stages " << options_.stages
      << (options_.writer_version > 1 ? " --writer-version " + std::to_string(options_.writer_version) : "") << "\n"
      << "// (the same command writes the same file). " << options_.stages << " stages, " << inputs.size()
      << (inputs.size() == 1 ? " input, " : " inputs, ") << outputs.size()
      << (outputs.size() == 1 ? " output" : " outputs") << ":\n";
  for (const Node &n : nodes_)
    out << "//   " << n.name << " (" << short_name(n.type) << ", " << extent_text(n.shape) << "): " << n.summary
        << (!n.is_input && n.uses == 0 ? " [output]" : "") << "\n";
  out << "#include \"Halide.h\"\n\nnamespace {\n\nusing namespace Halide;\n\n";
  if (uses_index_of_) {
    out << "// A table index in [0, size) from a value: scaled, clamped while still a float (NaN and\n"
        << "// infinities land in range too), then clamped as an integer for bounds inference.\n"
        << "Expr index_of(Expr value, float scale, int size) {\n"
        << "    Expr scaled = clamp(cast<float>(value) * scale, 0.0f, float(size - 1));\n"
        << "    return clamp(cast<int32_t>(scaled), 0, size - 1);\n"
        << "}\n\n";
  }
  out << "class RandomPipeline : public Generator<RandomPipeline> {\npublic:\n";
  for (const Node *n : inputs)
    out << "    Input<Buffer<" << cpp_type(n->type) << ", " << n->shape.size() << ">> " << n->name << "{\"" << n->name
        << "\"};\n";
  for (const Node *n : outputs)
    out << "    Output<Buffer<" << cpp_type(n->type) << ", " << n->shape.size() << ">> " << n->name << "{\"" << n->name
        << "\"};\n";
  out << "\n    void generate() {\n";
  for (const Node *n : inputs)
    for (const std::string &line : n->lines) out << "        " << line << "\n";
  for (const Node &n : nodes_) {
    if (n.is_input) continue;
    out << "\n        // " << n.name << ": " << n.summary << "\n";
    if (n.uses > 0) out << "        Func " << n.name << "(\"" << n.name << "\");\n";
    for (const std::string &line : n.lines) out << "        " << line << "\n";
  }
  out << "    }\n\n    void schedule() {\n";
  for (const Node *n : inputs) out << "        " << n->name << ".set_estimates(" << region_text(n->shape) << ");\n";
  for (const Node *n : outputs) out << "        " << n->name << ".set_estimates(" << region_text(n->shape) << ");\n";
  out << "        // HLSCHED_SCHEDULE\n    }\n\nprivate:\n"
      << "    Var x{\"x\"}, y{\"y\"}, c{\"c\"}, i{\"i\"};\n};\n\n}  // namespace\n\n"
      << "HALIDE_REGISTER_GENERATOR(RandomPipeline, random_pipeline)\n";
  return out.str();
}

}  // namespace hlsched::server::random_pipeline

namespace hlsched::server {

std::string random_pipeline_source(const RandomPipelineOptions &options) {
  if (options.stages < 1 || options.stages > kMaxRandomPipelineStages)
    throw std::invalid_argument("--stages must be between 1 and " + std::to_string(kMaxRandomPipelineStages));
  if (options.writer_version < 1 || options.writer_version > kRandomPipelineWriterVersion)
    throw std::invalid_argument("--writer-version must be between 1 and " +
                                std::to_string(kRandomPipelineWriterVersion));
  return random_pipeline::PipelineWriter(options).write();
}

}  // namespace hlsched::server
