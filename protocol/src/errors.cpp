#include "hlsched/protocol/errors.h"

#include <utility>

namespace hlsched::protocol {

const char* default_error_message(int code) {
  switch (code) {
    case kParseError: return "Parse error";
    case kInvalidRequest: return "Invalid Request";
    case kMethodNotFound: return "Method not found";
    case kInvalidParams: return "Invalid params";
    case kInternalError: return "Internal error";
    case kServerNotInitialized: return "Server not initialized";
    case kUnknownErrorCode: return "Unknown error";
    case kRequestFailed: return "Request failed";
    case kServerCancelled: return "Server cancelled";
    case kContentModified: return "Content modified";
    case kRequestCancelled: return "Request cancelled";
    default: return "Unknown error";
  }
}

RpcError::RpcError(int code, std::string message, nlohmann::json data)
    : code_(code), message_(std::move(message)), data_(std::move(data)) {}

InvalidParamsError::InvalidParamsError(std::string field_path, std::string reason)
    : RpcError(kInvalidParams, ""), field_path_(std::move(field_path)), reason_(std::move(reason)) {
  rebuild_message();
}

void InvalidParamsError::prepend_field(std::string_view parent) {
  if (parent.empty()) return;
  std::string joined(parent);
  // Array indices attach without a dot: "contentChanges" + "[2].range".
  if (!field_path_.empty() && field_path_.front() != '[') joined += '.';
  field_path_ = joined + field_path_;
  rebuild_message();
}

void InvalidParamsError::rebuild_message() {
  message_ = field_path_.empty() ? "invalid params: " + reason_
                                 : "invalid params: " + field_path_ + ": " + reason_;
}

}  // namespace hlsched::protocol
