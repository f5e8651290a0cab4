#include "result_json.h"

#include <sstream>

#include "schedule_json.h"

namespace hlsched::server {

using nlohmann::json;

namespace {

std::string type_name(const Halide::Type &t) {
  std::ostringstream out;
  out << t;
  return out.str();
}

json span_json(const Span &s) { return json{{"min", s.min}, {"extent", s.extent()}}; }

json spans_json(const std::vector<Span> &spans) {
  json out = json::array();
  for (const Span &s : spans) out.push_back(span_json(s));
  return out;
}

json affine_json(const AffineExpr &e) {
  json out{{"expr", e.text}, {"affine", e.is_affine}};
  if (e.is_affine) {
    out["constant"] = e.constant;
    out["coefficients"] = e.coefficients;
  }
  return out;
}

json access_json(const ProducerAccess &a) {
  json region = json::array();
  for (size_t d = 0; d < a.region_min.size(); d++)
    region.push_back({{"min", affine_json(a.region_min[d])}, {"max", affine_json(a.region_max[d])},
                      {"points", a.points_per_consumer_point[d]}});
  return {{"producer", a.producer}, {"is_input", a.producer_is_input}, {"calls_per_point", a.calls_per_point},
          {"pointwise", a.is_pointwise}, {"affine", a.is_affine}, {"each_call_affine", a.each_call_affine()},
          {"region_per_point", region}};
}

json stage_json(const StageNode &s) {
  json loops = json::array();
  for (const LoopDim &l : s.loops)
    loops.push_back({{"var", l.var}, {"rvar", l.is_rvar}, {"pure", l.is_pure}, {"estimate", span_json(l.estimate)}});
  json accesses = json::array();
  for (const ProducerAccess &a : s.accesses) accesses.push_back(access_json(a));
  json out{{"index", s.index}, {"name", s.name}, {"definition", s.definition}, {"loops", loops},
           {"points", s.points}, {"ops_per_point", s.ops}, {"accesses", accesses}};
  if (!s.phase_loops.empty()) {
    // Loops whose phase picks the branch a point computes; with all of them known, the average
    // point's arithmetic (dag/phase_folding.h).
    json phases = json::array();
    for (const PhaseLoop &l : s.phase_loops)
      phases.push_back({{"var", l.var}, {"period", l.period}, {"by_value", l.by_value}, {"first", l.first}});
    out["phase_loops"] = phases;
    out["arithmetic_per_point"] = s.arithmetic_ops().total();
    out["arithmetic_per_point_phases_known"] = s.arithmetic_with_phases_known();
  }
  if (!s.unrolled_jointly.empty()) {
    // An update's copies over a constant loop unrolled together (dag/phase_folding.h): their
    // arithmetic per copy, what they share counted once.
    json unrolled = json::object();
    for (const auto &[var, joint] : s.unrolled_jointly)
      unrolled[var] = {{"copies", joint.phases},
                       {"arithmetic_per_copy", double(arithmetic_ops_of(joint.ops_total).total()) / double(joint.phases)}};
    out["unrolled_jointly"] = unrolled;
  }
  return out;
}

}  // namespace

json to_json(const PipelineDag &dag) {
  json funcs = json::array();
  for (const FuncNode &f : dag.funcs) {
    json types = json::array();
    for (const auto &t : f.types) types.push_back(type_name(t));
    json stages = json::array();
    for (const StageNode &s : f.stages) stages.push_back(stage_json(s));
    funcs.push_back({{"name", f.name}, {"args", f.args}, {"types", types}, {"is_output", f.is_output},
                     {"extern", f.has_extern_definition}, {"boundary_condition", f.is_boundary_condition},
                     {"region", spans_json(f.region)}, {"region_bounded", f.region_is_bounded},
                     {"constant_dims", f.constant_dims},
                     {"producers", f.producers}, {"consumers", f.consumers}, {"stages", stages}});
  }
  json inputs = json::array();
  for (const InputNode &in : dag.inputs) {
    json entry{{"name", in.name}, {"buffer", in.is_buffer}, {"type", type_name(in.type)},
               {"has_estimates", in.has_estimates}};
    if (in.is_buffer) entry["estimate"] = spans_json(in.estimate);
    else entry["estimate"] = in.scalar_estimate;
    inputs.push_back(entry);
  }
  json edges = json::array();
  for (const DagEdge &e : dag.edges)
    edges.push_back({{"producer", e.producer}, {"consumer", e.consumer}, {"consumer_stage", e.consumer_stage}});
  return {{"funcs", funcs}, {"inputs", inputs}, {"outputs", dag.outputs}, {"edges", edges}};
}

json to_json(const ScheduleResult &result) {
  json stages = json::array();
  for (const StageCost &c : result.stages)
    stages.push_back({{"func", c.func}, {"stage", c.stage}, {"placement", c.placement},
                      {"predicted_ms", c.predicted_ms}, {"terms", c.terms_ms}, {"bound", c.bound},
                      {"points", c.points}, {"bytes", c.bytes_moved}, {"operations", c.operations}});
  json placements = json::array();
  for (const FuncSchedule &f : result.schedule.funcs) {
    static const char *levels[] = {"inline", "root", "block", "thread"};
    placements.push_back({{"func", f.func}, {"compute", levels[int(f.level)]}, {"comment", f.comment}});
  }
  return {{"schedule_code", result.schedule_code},
          {"predicted_runtime_ms", result.predicted_runtime_ms},
          {"stages", stages},
          {"funcs", placements},
          {"schedule", schedule_spec_to_json(result.schedule)},
          {"target", result.target},
          {"gpu_profile", result.gpu_profile},
          {"cost_model", result.cost_model},
          {"decisions", result.decisions},
          {"constructs", result.constructs},  // the schedule-space constructs it uses (ARCHITECTURE.md)
          {"search",
           {{"time_ms", result.search.time_ms},
            {"states_evaluated", result.search.states_evaluated},
            {"kernels_costed", result.search.kernels_costed},
            {"memo_hits", result.search.memo_hits},
            {"memo_entries_loaded", result.search.memo_entries_loaded},
            {"frozen_funcs", result.search.frozen_funcs},
            {"warm_start_funcs", result.search.warm_start_funcs},
            {"passes_completed", result.search.passes_completed},
            {"polished_moves", result.search.polished_moves},
            {"widened_kernels", result.search.widened_kernels},
            {"work", result.search.work},
            {"budget_exhausted", result.search.budget_exhausted},
            {"time_limit_reached", result.search.time_limit_reached},
            {"fallback", result.search.fallback},
            {"strategy", result.search.strategy}}}};
}

json to_json(const CompilerDiagnostic &d) {
  return {{"file", d.file}, {"line", d.line}, {"column", d.column}, {"severity", d.severity}, {"message", d.message}};
}

}  // namespace hlsched::server
