// Server-initiated work-done progress ($/progress) for builds and searches.
//
// A token is created with window/workDoneProgress/create; "begin" is sent once the client has
// accepted it, and reports/end that happen before that are queued (an analysis may even finish
// first). Clients that did not announce window.workDoneProgress get nothing.
// Threading: I/O thread only (the create response arrives inside Dispatcher::process_body).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hlsched/protocol/dispatcher.h"

namespace hlsched::server::lsp {

class WorkDoneProgress {
 public:
  WorkDoneProgress(protocol::Dispatcher &dispatcher, protocol::SendFunction send);

  void set_client_support(bool supported) { supported_ = supported; }

  /// Starts a progress; returns its id for report()/end() (ids are never reused).
  std::uint64_t begin(const std::string &title, const std::string &message);
  void report(std::uint64_t id, const std::string &message, std::optional<std::uint32_t> percentage = std::nullopt);
  void end(std::uint64_t id, const std::string &message);

 private:
  struct Progress {
    bool accepted = false;  // the client answered the create request
    bool refused = false;
    std::vector<nlohmann::json> queued;  // $/progress values waiting for acceptance
  };
  void send_value(std::uint64_t id, nlohmann::json value, bool last);

  protocol::Dispatcher &dispatcher_;
  protocol::SendFunction send_;
  bool supported_ = false;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, std::shared_ptr<Progress>> active_;
};

}  // namespace hlsched::server::lsp
