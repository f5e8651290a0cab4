#pragma once
// LSP base protocol framing: "Content-Length: N\r\n[Content-Type: ...\r\n]\r\n" + N bytes.
// https://microsoft.github.io/language-server-protocol/specifications/base/0.9/specification/

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace hlsched::protocol {

// Prepends the Content-Length header to a message body.
std::string encode_frame(std::string_view body);

enum class FramingErrorKind {
  kMissingContentLength,    // header section ended without Content-Length
  kDuplicateContentLength,  // Content-Length given more than once
  kInvalidContentLength,    // not a plain non-negative decimal that fits size_t
  kMalformedHeaderLine,     // a header line without "name: value" shape
  kHeaderTooLong,           // no "\r\n\r\n" within the header size limit
  kBodyTooLarge,            // Content-Length above the body size limit
};

const char* to_string(FramingErrorKind kind);

struct FramingError {
  FramingErrorKind kind;
  std::string detail;  // human-readable, for logs
  // True when the decoder still knew where the broken frame ends and has
  // skipped (or is skipping) it, so decoding continues with the next frame.
  // False means the byte stream can no longer be trusted: close the connection.
  bool recoverable;
};

struct FrameLimits {
  std::size_t max_body_bytes = 64u << 20;   // 64 MiB
  std::size_t max_header_bytes = 16u << 10;  // 16 KiB, including the blank line
};

// One thing the decoder produced: a complete body or an error.
using DecodedFrame = std::variant<std::string, FramingError>;

// Incremental decoder for a byte stream of LSP frames (e.g. a pipe or socket).
// Feed it whatever chunks arrive, then drain next() until it returns nullopt.
//
//   decoder.feed(chunk);
//   while (auto frame = decoder.next()) {
//     if (auto* body = std::get_if<std::string>(&*frame)) handle(*body);
//     else if (!std::get<FramingError>(*frame).recoverable) close();
//   }
//
// Oversized bodies are refused as soon as their header is complete and are then
// skipped by counting bytes, never buffered. Memory use is bounded by
// max_header_bytes + max_body_bytes + the size of the last chunk fed.
// After an unrecoverable error, feed() discards input and next() yields nothing.
//
// Threading: not thread-safe; owned by the one reader thread of a connection.
class FrameDecoder {
 public:
  explicit FrameDecoder(FrameLimits limits = {});

  void feed(std::string_view bytes);
  std::optional<DecodedFrame> next();

  // False once an unrecoverable error was reported.
  bool healthy() const { return !failed_; }
  // Bytes received but not yet consumed (a partial header or body).
  std::size_t buffered_bytes() const { return buffer_.size() - read_pos_; }

 private:
  enum class State { kReadingHeader, kReadingBody, kSkippingBody, kFailed };

  std::optional<DecodedFrame> parse_header(std::size_t header_end);
  FramingError fail(FramingErrorKind kind, std::string detail);
  void compact();

  FrameLimits limits_;
  State state_ = State::kReadingHeader;
  bool failed_ = false;
  std::string buffer_;
  std::size_t read_pos_ = 0;      // start of unconsumed bytes in buffer_
  std::size_t scan_pos_ = 0;      // where to resume looking for "\r\n\r\n"
  std::size_t body_length_ = 0;   // kReadingBody: bytes expected
  std::size_t skip_remaining_ = 0;  // kSkippingBody: bytes still to drop
};

}  // namespace hlsched::protocol
