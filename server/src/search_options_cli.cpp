#include "search_options_cli.h"

#include <sstream>

namespace hlsched::server {

void add_search_options(CLI::App *command, AutoschedulerOptions &o) {
  command->add_option("--strategy", o.strategy, "Search strategy: beam (default) or simple");
  command->add_option("--beam-size", o.beam_size, "States kept per step of the beam search")->check(CLI::PositiveNumber);
  command->add_option("--passes", o.passes, "Fine passes after the coarse inline/root pass")->check(CLI::NonNegativeNumber);
  command->add_flag_callback("--no-freeze", [&o] { o.freeze = false; },
                             "Search every stage in every pass (no two-phase freezing)");
  command->add_flag_callback("--no-sampling", [&o] { o.sampling = false; },
                             "Evaluate every tiling (no hierarchical sampling)");
  command->add_flag_callback("--no-polish", [&o] { o.polish = false; },
                             "No final coordinate descent (nor widening to a warp) from the best schedule");
  command->add_flag_callback("--no-memo", [&o] { o.memo = false; }, "Recompute every kernel cost (no memoization)");
  command->add_option("--seed", o.seed, "Seed of the search's random choices");
  command->add_option("--work-budget", o.work_budget,
                      "Search work before it returns its best so far, in seconds of the reference machine (counted, "
                      "not timed: the same schedule under any load)")
      ->check(CLI::PositiveNumber);
  command->add_option("--time-budget", o.time_budget_s,
                      "Wall-clock seconds the search may take at most (it returns the best so far; the pick may then "
                      "depend on the load)")
      ->check(CLI::PositiveNumber);
  command->add_option("--memo-file", o.memo_path, "Load the cost memo from this file and save it back");
  command->add_option("--model", o.model, "Cost model: both (default: the pick the two agree on), hand (the profile's rates) or learned (hybrid network)")
      ->check(CLI::IsMember({"hand", "learned", "both"}));
  command->add_option("--weights", o.weights, "Learned model weights from hlsched train (default: embedded for the GPU)")
      ->check(CLI::ExistingFile);
  command->add_option("--candidate", o.candidate,
                      "Return the search's candidate N instead of its best (0: the best; ranked by prediction)")
      ->check(CLI::NonNegativeNumber);
}

std::vector<std::string> search_option_args(const AutoschedulerOptions &o) {
  auto number = [](double v) {
    std::ostringstream out;
    out << v;
    return out.str();
  };
  std::vector<std::string> args = {"--strategy", o.strategy, "--beam-size", std::to_string(o.beam_size),
                                   "--passes", std::to_string(o.passes), "--seed", std::to_string(o.seed),
                                   "--work-budget", number(o.work_budget), "--time-budget", number(o.time_budget_s)};
  if (!o.freeze) args.push_back("--no-freeze");
  if (!o.sampling) args.push_back("--no-sampling");
  if (!o.polish) args.push_back("--no-polish");
  if (!o.memo) args.push_back("--no-memo");
  if (!o.memo_path.empty()) args.insert(args.end(), {"--memo-file", o.memo_path});
  args.insert(args.end(), {"--model", o.model});
  if (!o.weights.empty()) args.insert(args.end(), {"--weights", o.weights});
  if (o.candidate != 0) args.insert(args.end(), {"--candidate", std::to_string(o.candidate)});
  return args;
}

}  // namespace hlsched::server
