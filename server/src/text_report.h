// Human-readable renderings of results for the terminal (the --json forms are the contract;
// these are for people).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace hlsched::server {

std::string schedule_report(const nlohmann::json &result);
std::string dag_report(const nlohmann::json &dag);
/// One warning line per launch of `compiled["unbounded_launches"]` (a lower or verify result).
std::string unbounded_launches_report(const nlohmann::json &compiled);

}  // namespace hlsched::server
