// Printing a ScheduleSpec as C++ that compiles where it is pasted.
//
// Funcs are reached by name through the pipeline, because many of them are locals of generate()
// or made in helper functions and have no member to refer to. Vars are declared by their Halide
// names, which is how Halide matches loop variables.
#include <cctype>
#include <set>
#include <sstream>

#include "hlsched/engine/schedule_spec.h"

namespace hlsched {

using namespace Halide;

namespace {

const char *tail_name(TailStrategy t) {
  switch (t) {
    case TailStrategy::RoundUp: return "TailStrategy::RoundUp";
    case TailStrategy::GuardWithIf: return "TailStrategy::GuardWithIf";
    case TailStrategy::Predicate: return "TailStrategy::Predicate";
    case TailStrategy::PredicateLoads: return "TailStrategy::PredicateLoads";
    case TailStrategy::PredicateStores: return "TailStrategy::PredicateStores";
    case TailStrategy::ShiftInwards: return "TailStrategy::ShiftInwards";
    case TailStrategy::Auto: return "TailStrategy::Auto";
  }
  return "TailStrategy::Auto";
}

const char *memory_name(MemoryType m) {
  switch (m) {
    case MemoryType::GPUShared: return "MemoryType::GPUShared";
    case MemoryType::GPUTexture: return "MemoryType::GPUTexture";
    case MemoryType::Register: return "MemoryType::Register";
    case MemoryType::Stack: return "MemoryType::Stack";
    case MemoryType::Heap: return "MemoryType::Heap";
    case MemoryType::LockedCache: return "MemoryType::LockedCache";
    case MemoryType::VTCM: return "MemoryType::VTCM";
    case MemoryType::AMXTile: return "MemoryType::AMXTile";
    case MemoryType::Auto: return "MemoryType::Auto";
  }
  return "MemoryType::Auto";
}

bool is_cpp_keyword(const std::string &s) {
  static const std::set<std::string> keywords = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
      "continue", "default", "delete", "do", "double", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "not",
      "operator", "or", "private", "protected", "public", "register", "return", "short", "signed", "sizeof",
      "static", "struct", "switch", "template", "this", "throw", "true", "try", "typedef", "typename", "union",
      "unsigned", "using", "virtual", "void", "volatile", "while", "xor",
      // Names the emitted code itself uses.
      "Halide", "Func", "Var", "RVar", "Internal", "TailStrategy", "MemoryType", "std", "hlsched_funcs"};
  return keywords.count(s) > 0;
}

// Assigns each Halide name one C++ identifier, unique across Vars, RVars and Funcs.
class IdentifierTable {
public:
  std::string add(const std::string &halide_name, const std::string &kind) {
    auto key = kind + ":" + halide_name;
    auto it = ids_.find(key);
    if (it != ids_.end()) return it->second;
    std::string id = cpp_identifier(halide_name);
    std::string base = id;
    for (int n = 2; used_.count(id); n++) id = base + "_" + std::to_string(n);
    used_.insert(id);
    ids_[key] = id;
    return id;
  }

private:
  std::map<std::string, std::string> ids_;
  std::set<std::string> used_;
};

std::string join(const std::vector<std::string> &items) {
  std::string out;
  for (size_t i = 0; i < items.size(); i++) out += (i ? ", " : "") + items[i];
  return out;
}

class SourceEmitter {
public:
  std::string emit(const ScheduleSpec &schedule, EmitContext context) {
    declare_names(schedule);
    std::ostringstream out;
    for (const auto &line : schedule.header_comments) out << "// " << line << "\n";
    out << "using namespace Halide;\n";
    emit_func_lookup(out, context);
    emit_var_declarations(out);
    for (const FuncSchedule &fs : schedule.funcs) emit_func(out, fs);
    return out.str();
  }

private:
  void declare_names(const ScheduleSpec &schedule) {
    // Vars first so that loop variables keep their natural names (x, y, xo, xi...).
    for (const FuncSchedule &fs : schedule.funcs)
      for (const StageSchedule &stage : fs.stages)
        for (const Directive &d : stage.directives)
          for (const std::string &v : d.vars) {
            bool is_rvar = std::count(stage.rvars.begin(), stage.rvars.end(), v) > 0;
            std::string id = ids_.add(v, is_rvar ? "rvar" : "var");
            (is_rvar ? rvars_ : vars_).emplace(v, id);
          }
    for (const FuncSchedule &fs : schedule.funcs)
      if (fs.level != ComputeLevel::Inline) func_ids_[fs.func] = ids_.add(fs.func, "func");
    // Funcs an rfactor returns are declared by that statement, not looked up in the pipeline.
    for (const FuncSchedule &fs : schedule.funcs)
      for (const StageSchedule &stage : fs.stages)
        for (const Directive &d : stage.directives)
          if (d.kind == Directive::Kind::RFactor) {
            if (!func_ids_.count(d.at_func)) func_ids_[d.at_func] = ids_.add(d.at_func, "func");
            made_by_rfactor_.insert(d.at_func);
          }
  }

  void emit_func_lookup(std::ostringstream &out, EmitContext context) const {
    if (func_ids_.empty()) return;
    const char *pipeline = context == EmitContext::GeneratorSchedule ? "get_pipeline()" : "pipeline";
    out << "// Every Func of the pipeline by name (some are locals of generate()).\n"
        << "std::map<std::string, Internal::Function> hlsched_funcs;\n"
        << "for (const Func &out : " << pipeline << ".outputs()) {\n"
        << "    hlsched_funcs.emplace(out.name(), out.function());\n"
        << "    for (const auto &called : Internal::find_transitive_calls(out.function())) hlsched_funcs.insert(called);\n"
        << "}\n";
  }

  void emit_var_declarations(std::ostringstream &out) const {
    auto declare = [&](const std::map<std::string, std::string> &names, const char *type) {
      if (names.empty()) return;
      std::vector<std::string> decls;
      for (const auto &[halide, id] : names) decls.push_back(id + "(\"" + halide + "\")");
      out << type << " " << join(decls) << ";\n";
    };
    declare(vars_, "Var");
    declare(rvars_, "RVar");
  }

  void emit_func(std::ostringstream &out, const FuncSchedule &fs) {
    out << "\n";
    if (!fs.comment.empty()) out << "// " << fs.comment << "\n";
    if (fs.level == ComputeLevel::Inline) return;
    const std::string &id = func_ids_.at(fs.func);
    if (!made_by_rfactor_.count(fs.func)) out << "Func " << id << "(hlsched_funcs.at(\"" << fs.func << "\"));\n";
    for (const StageSchedule &stage : fs.stages) {
      std::string receiver = stage.stage == 0 ? id : id + ".update(" + std::to_string(stage.stage - 1) + ")";
      // One statement per chain of calls; an rfactor ends its chain, assigning the Func it returns;
      // a specialization's own schedule ends at its EndSpecialization (which emits nothing).
      const std::vector<Directive> &ds = stage.directives;
      for (size_t begin = 0; begin < ds.size();) {
        size_t end = begin;
        while (end + 1 < ds.size() && ds[end].kind != Directive::Kind::RFactor &&
               ds[end + 1].kind != Directive::Kind::EndSpecialization)
          end++;
        if (ds[end].kind == Directive::Kind::RFactor) out << "Func " << func_ids_.at(ds[end].at_func) << " = ";
        out << receiver;
        for (size_t i = begin; i <= end; i++) out << (i == begin ? "" : "\n    ") << "." << call(ds[i]);
        out << ";\n";
        begin = end + 1;
        if (begin < ds.size() && ds[begin].kind == Directive::Kind::EndSpecialization) begin++;
      }
    }
  }

  std::string name_of(const std::string &v) const {
    auto it = vars_.find(v);
    if (it != vars_.end()) return it->second;
    return rvars_.at(v);
  }
  std::vector<std::string> names_of(const std::vector<std::string> &vs) const {
    std::vector<std::string> out;
    for (const auto &v : vs) out.push_back(name_of(v));
    return out;
  }

  std::string call(const Directive &d) const {
    using K = Directive::Kind;
    auto factor = [&](size_t i) { return std::to_string(d.factors.at(i)); };
    switch (d.kind) {
      case K::ComputeRoot: return "compute_root()";
      case K::ComputeAt: return "compute_at(" + func_ids_.at(d.at_func) + ", " + name_of(d.vars.at(0)) + ")";
      case K::ComputeWith: return "compute_with(" + func_ids_.at(d.at_func) + ", " + name_of(d.vars.at(0)) + ")";
      case K::StoreIn: return std::string("store_in(") + memory_name(d.memory) + ")";
      case K::Split:
        return "split(" + join(names_of(d.vars)) + ", " + factor(0) + ", " + tail_name(d.tail) + ")";
      case K::Fuse: return "fuse(" + join(names_of(d.vars)) + ")";
      case K::Reorder: return "reorder(" + join(names_of(d.vars)) + ")";
      case K::GpuTile: {
        std::vector<std::string> args = names_of(d.vars);
        for (size_t i = 0; i < d.factors.size(); i++) args.push_back(factor(i));
        args.push_back(tail_name(d.tail));
        return "gpu_tile(" + join(args) + ")";
      }
      case K::GpuBlocks: return "gpu_blocks(" + join(names_of(d.vars)) + ")";
      case K::GpuThreads: return "gpu_threads(" + join(names_of(d.vars)) + ")";
      case K::GpuSingleThread: return "gpu_single_thread()";
      case K::Unroll: return "unroll(" + name_of(d.vars.at(0)) + ")";
      case K::Vectorize: return "vectorize(" + name_of(d.vars.at(0)) + ")";
      case K::Atomic: return "atomic()";
      case K::RFactor: return "rfactor(" + join(names_of(d.vars)) + ")";
      case K::BoundExtent: return "bound_extent(" + name_of(d.vars.at(0)) + ", " + factor(0) + ")";
      case K::AlignBounds: return "align_bounds(" + name_of(d.vars.at(0)) + ", " + factor(0) + ")";
      case K::AlignStorage: return "align_storage(" + name_of(d.vars.at(0)) + ", " + factor(0) + ")";
      case K::Specialize:
      case K::SpecializeStage: {
        std::string condition;
        for (size_t i = 0; i + 2 < d.factors.size(); i += 3) {
          const std::string dim = func_ids_.at(d.at_func) + ".output_buffer().dim(" + factor(i + 1) + ")";
          condition += std::string(i ? " && " : "");
          switch (SpecializeTerm(d.factors[i])) {
            case SpecializeTerm::Aligned: condition += dim + ".min() % " + factor(i + 2) + " == 0"; break;
            case SpecializeTerm::Extent: condition += dim + ".extent() == " + factor(i + 2); break;
            case SpecializeTerm::ExtentMultiple: condition += dim + ".extent() % " + factor(i + 2) + " == 0"; break;
          }
        }
        return "specialize(" + condition + ")";
      }
      case K::EndSpecialization: return "";
    }
    return "";
  }

  IdentifierTable ids_;
  std::map<std::string, std::string> vars_, rvars_, func_ids_;
  std::set<std::string> made_by_rfactor_;
};

}  // namespace

std::string cpp_identifier(const std::string &halide_name) {
  std::string id;
  for (char c : halide_name) id += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])) || id[0] == '_') id = "v" + id;
  if (is_cpp_keyword(id)) id += "_";
  return id;
}

std::string emit_schedule_source(const ScheduleSpec &schedule, EmitContext context) {
  return SourceEmitter().emit(schedule, context);
}

}  // namespace hlsched
