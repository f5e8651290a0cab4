#include "dag/atomic_index.h"

#include <algorithm>

namespace hlsched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// Producer call sites, skipping the update's read of its own Func (and that read's arguments),
// each with the calls whose arguments hold it; and the same for uses of the variables `watched`.
class ProducerCalls : public IRVisitor {
public:
  explicit ProducerCalls(std::string self, std::vector<std::string> watched = {})
      : self_(std::move(self)), watched_(std::move(watched)) {}
  std::map<std::string, int64_t> calls;
  std::map<std::string, std::vector<EnclosingCalls>> sites;
  std::vector<EnclosingCalls> watched_uses;

private:
  using IRVisitor::visit;
  void visit(const Call *call) override {
    if (call->call_type == Call::Halide && call->name == self_) return;
    // Halide 14 clamps inside the arguments of a Func's call and of an input's alike (tested).
    const bool indexes = call->call_type == Call::Halide || call->call_type == Call::Image;
    if (call->call_type == Call::Halide || (call->call_type == Call::Image && !call->image.defined())) {
      calls[call->name]++;
      sites[call->name].push_back(enclosing_);
    }
    if (indexes) enclosing_.push_back(call->name);
    IRVisitor::visit(call);
    if (indexes) enclosing_.pop_back();
  }
  void visit(const Variable *var) override {
    if (std::count(watched_.begin(), watched_.end(), var->name)) watched_uses.push_back(enclosing_);
  }
  void visit(const Let *let) override {
    // A let's variable may be used anywhere in its body: its value's uses count as unenclosed.
    EnclosingCalls saved;
    std::swap(saved, enclosing_);
    let->value.accept(this);
    std::swap(saved, enclosing_);
    let->body.accept(this);
  }
  std::string self_;
  std::vector<std::string> watched_;
  EnclosingCalls enclosing_;
};

class HasLet : public IRVisitor {
public:
  bool found = false;

private:
  using IRVisitor::visit;
  void visit(const Let *op) override {
    found = true;
    IRVisitor::visit(op);
  }
};

bool has_let(const Expr &e) {
  HasLet v;
  e.accept(&v);
  return v.found;
}

// Whether the arguments of the value's read of `self` use a variable bound by a let around it.
class SelfReadUsesLet : public IRVisitor {
public:
  explicit SelfReadUsesLet(std::string self) : self_(std::move(self)) {}
  bool found = false;

private:
  using IRVisitor::visit;
  void visit(const Let *op) override {
    op->value.accept(this);
    lets_.push_back(op->name);
    op->body.accept(this);
    lets_.pop_back();
  }
  void visit(const Call *call) override {
    if (call->call_type == Call::Halide && call->name == self_)
      for (const Expr &arg : call->args)
        for (const std::string &name : lets_) found = found || expr_uses_var(arg, name);
    IRVisitor::visit(call);
  }
  std::string self_;
  std::vector<std::string> lets_;
};

class VariableUses : public IRVisitor {
public:
  std::map<std::string, int> uses;

private:
  using IRVisitor::visit;
  void visit(const Variable *op) override { uses[op->name]++; }
};

}  // namespace

std::map<std::string, bool> funcs_clamped_in_indexes(const std::vector<std::string> &order,
                                                     const std::map<std::string, Function> &env) {
  FuncValueBounds bounds;
  std::map<std::string, bool> clamped;
  for (const std::string &name : order) {
    const Function &f = env.at(name);
    for (int j = 0; j < f.outputs(); j++) {
      Interval value = Interval::everything();
      // Halide bounds only pure Funcs' values; the others may hold anything.
      if (f.has_pure_definition() && !f.has_update_definition() && !f.has_extern_definition()) {
        Scope<Interval> anything;
        for (const std::string &arg : f.args()) anything.push(arg, Interval::everything());
        value = bounds_of_expr_in_scope(f.values()[j], anything, bounds);
        for (const Specialization &s : f.definition().specializations())
          value.include(bounds_of_expr_in_scope(s.definition.values()[j], anything, bounds));
        if (value.has_lower_bound()) value.min = simplify(common_subexpression_elimination(value.min));
        if (value.has_upper_bound()) value.max = simplify(common_subexpression_elimination(value.max));
      }
      bounds[{name, j}] = value;
      const Type t = f.output_types()[j];
      // Halide clamps unless the bounds are the type's whole range: one side inside is enough
      // (random pipeline 400119: a saturating cast to [0, 32767] of an int16 got max(v, 0)).
      if (value.is_bounded() && can_prove(t.min() < value.min || value.max < t.max())) clamped[name] = true;
    }
    clamped.emplace(name, false);
  }
  return clamped;
}

bool definition_repeats_subexpression(const Function &f) {
  if (!f.has_pure_definition() || f.has_extern_definition()) return false;
  for (const Expr &v : f.values())
    if (has_let(v)) return true;
  return false;
}

bool definition_repeats_argument(const Function &f) {
  if (!f.has_pure_definition() || f.has_extern_definition()) return false;
  VariableUses counter;
  for (const Expr &v : f.values()) v.accept(&counter);
  for (const std::string &arg : f.args())
    if (counter.uses[arg] > 1) return true;
  return false;
}

PureCallSites pure_call_sites(const Function &f) {
  if (!f.has_pure_definition() || f.has_extern_definition()) return {};
  ProducerCalls calls(f.name(), f.args());
  for (const Expr &v : f.values()) v.accept(&calls);
  return PureCallSites{std::move(calls.sites), std::move(calls.watched_uses)};
}

AtomicIndexReads atomic_index_reads(const Function &f, const Definition &update) {
  AtomicIndexReads reads;
  ProducerCalls index(f.name()), increment(f.name());
  for (const Expr &arg : update.args()) {
    arg.accept(&index);
    reads.repeats_subexpression = reads.repeats_subexpression || has_let(arg);
  }
  for (const Expr &v : update.values()) {
    v.accept(&increment);
    SelfReadUsesLet shared(f.name());
    v.accept(&shared);
    reads.repeats_subexpression = reads.repeats_subexpression || shared.found;
  }
  reads.index = std::move(index.calls);
  reads.index_sites = std::move(index.sites);
  reads.increment = std::move(increment.calls);
  return reads;
}

}  // namespace hlsched
