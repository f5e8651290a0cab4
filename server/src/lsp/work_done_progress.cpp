#include "lsp/work_done_progress.h"

#include "hlsched/protocol/lsp_types.h"

namespace hlsched::server::lsp {

namespace plsp = protocol::lsp;
using nlohmann::json;

namespace {
std::string token_of(std::uint64_t id) { return "hlsched-progress-" + std::to_string(id); }
}  // namespace

WorkDoneProgress::WorkDoneProgress(protocol::Dispatcher &dispatcher, protocol::SendFunction send)
    : dispatcher_(dispatcher), send_(std::move(send)) {}

std::uint64_t WorkDoneProgress::begin(const std::string &title, const std::string &message) {
  const std::uint64_t id = next_id_++;
  if (!supported_) return id;
  auto progress = std::make_shared<Progress>();
  plsp::WorkDoneProgressBegin begin{title, false, message, std::nullopt};
  progress->queued.push_back(json(begin));
  active_[id] = progress;
  const std::string token = token_of(id);
  send_(dispatcher_.make_request(
      "window/workDoneProgress/create", json(plsp::WorkDoneProgressCreateParams{protocol::RequestId(token)}),
      [this, id, progress, token](const protocol::Response &response) {
        if (!response.ok()) {
          progress->refused = true;
          active_.erase(id);
          return;
        }
        progress->accepted = true;
        std::vector<json> queued = std::move(progress->queued);
        for (json &value : queued) {
          const bool last = value.value("kind", "") == "end";
          send_(protocol::Dispatcher::make_notification(
              "$/progress", json(plsp::ProgressParams{protocol::RequestId(token), std::move(value)})));
          if (last) active_.erase(id);
        }
      }));
  return id;
}

void WorkDoneProgress::send_value(std::uint64_t id, json value, bool last) {
  auto it = active_.find(id);
  if (it == active_.end()) return;
  std::shared_ptr<Progress> progress = it->second;
  if (!progress->accepted) {
    progress->queued.push_back(std::move(value));
    return;
  }
  send_(protocol::Dispatcher::make_notification(
      "$/progress", json(plsp::ProgressParams{protocol::RequestId(token_of(id)), std::move(value)})));
  if (last) active_.erase(id);
}

void WorkDoneProgress::report(std::uint64_t id, const std::string &message, std::optional<std::uint32_t> percentage) {
  send_value(id, json(plsp::WorkDoneProgressReport{false, message, percentage}), false);
}

void WorkDoneProgress::end(std::uint64_t id, const std::string &message) {
  send_value(id, json(plsp::WorkDoneProgressEnd{message}), true);
}

}  // namespace hlsched::server::lsp
