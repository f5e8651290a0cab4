#include "dag/algorithm_loops.h"

namespace hlsched {

using namespace Halide;
using namespace Halide::Internal;

std::vector<Dim> algorithm_loops(const Function &f, const Definition &def, bool is_update) {
  std::vector<Dim> loops;
  const std::vector<std::string> &pure_args = f.args();
  if (!is_update) {
    for (const std::string &arg : pure_args) loops.push_back({arg, ForType::Serial, DeviceAPI::None, DimType::PureVar});
    return loops;
  }
  // Halide's own rule for an update's initial dims (Function::define_update): the RDom's
  // variables, pure where no two of their values can touch the same element, then the pure args.
  for (const ReductionVariable &rv : def.schedule().rvars()) {
    const bool pure = can_parallelize_rvar(rv.var, f.name(), def);
    loops.push_back({rv.var, ForType::Serial, DeviceAPI::None, pure ? DimType::PureRVar : DimType::ImpureRVar});
  }
  const std::vector<Expr> &args = def.args();
  for (size_t i = 0; i < args.size() && i < pure_args.size(); i++) {
    const Variable *v = args[i].as<Variable>();
    if (v && !v->param.defined() && !v->reduction_domain.defined() && v->name == pure_args[i])
      loops.push_back({v->name, ForType::Serial, DeviceAPI::None, DimType::PureVar});
  }
  return loops;
}

}  // namespace hlsched
