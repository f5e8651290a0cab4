#include "hlsched/protocol/framing.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>
#include <vector>

namespace hlsched::protocol {
namespace {

constexpr std::string_view kHeaderTerminator = "\r\n\r\n";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Header names are case-insensitive (the base protocol follows HTTP).
bool equals_ignore_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Strict decimal parse: no sign, no spaces, no overflow.
std::optional<std::size_t> parse_length(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  std::size_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    std::size_t digit = static_cast<std::size_t>(c - '0');
    if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
  }
  return out;
}

}  // namespace

std::string encode_frame(std::string_view body) {
  std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  frame.append(body);
  return frame;
}

const char* to_string(FramingErrorKind kind) {
  switch (kind) {
    case FramingErrorKind::kMissingContentLength: return "missing Content-Length";
    case FramingErrorKind::kDuplicateContentLength: return "duplicate Content-Length";
    case FramingErrorKind::kInvalidContentLength: return "invalid Content-Length";
    case FramingErrorKind::kMalformedHeaderLine: return "malformed header line";
    case FramingErrorKind::kHeaderTooLong: return "header section too long";
    case FramingErrorKind::kBodyTooLarge: return "body too large";
  }
  return "unknown framing error";
}

FrameDecoder::FrameDecoder(FrameLimits limits) : limits_(limits) {}

void FrameDecoder::feed(std::string_view bytes) {
  if (state_ == State::kFailed) return;
  // While skipping an oversized body, drop bytes on arrival instead of storing them.
  if (state_ == State::kSkippingBody && buffered_bytes() == 0) {
    std::size_t dropped = std::min(skip_remaining_, bytes.size());
    skip_remaining_ -= dropped;
    bytes.remove_prefix(dropped);
    if (skip_remaining_ == 0) state_ = State::kReadingHeader;
  }
  compact();
  buffer_.append(bytes);
}

std::optional<DecodedFrame> FrameDecoder::next() {
  for (;;) {
    switch (state_) {
      case State::kFailed:
        return std::nullopt;

      case State::kSkippingBody: {
        std::size_t dropped = std::min(skip_remaining_, buffered_bytes());
        read_pos_ += dropped;
        skip_remaining_ -= dropped;
        if (skip_remaining_ > 0) return std::nullopt;
        state_ = State::kReadingHeader;
        continue;
      }

      case State::kReadingBody: {
        if (buffered_bytes() < body_length_) return std::nullopt;
        std::string body = buffer_.substr(read_pos_, body_length_);
        read_pos_ += body_length_;
        state_ = State::kReadingHeader;
        return DecodedFrame(std::move(body));
      }

      case State::kReadingHeader: {
        // Resume the search a few bytes back: the terminator may straddle chunks.
        std::size_t from = std::max(read_pos_, scan_pos_ < 3 ? 0 : scan_pos_ - 3);
        std::size_t end = buffer_.find(kHeaderTerminator, from);
        if (end == std::string::npos) {
          scan_pos_ = buffer_.size();
          if (buffered_bytes() >= limits_.max_header_bytes) {
            return DecodedFrame(fail(FramingErrorKind::kHeaderTooLong,
                                     "no end of headers within " +
                                         std::to_string(limits_.max_header_bytes) + " bytes"));
          }
          return std::nullopt;
        }
        std::size_t header_size = end + kHeaderTerminator.size() - read_pos_;
        if (header_size > limits_.max_header_bytes) {
          return DecodedFrame(fail(FramingErrorKind::kHeaderTooLong,
                                   "header section is " + std::to_string(header_size) + " bytes"));
        }
        if (auto result = parse_header(end)) return result;
        continue;  // header accepted; the body may already be buffered
      }
    }
  }
}

// Parses the header lines in [read_pos_, header_end) and consumes them plus the
// blank line. Returns an error to report, or nullopt when the header was fine.
std::optional<DecodedFrame> FrameDecoder::parse_header(std::size_t header_end) {
  std::string_view section(buffer_.data() + read_pos_, header_end - read_pos_);
  read_pos_ = header_end + kHeaderTerminator.size();
  scan_pos_ = read_pos_;

  std::vector<std::size_t> lengths;
  std::optional<FramingError> first_problem;
  auto note = [&](FramingErrorKind kind, std::string detail) {
    if (!first_problem) first_problem = FramingError{kind, std::move(detail), true};
  };

  while (!section.empty()) {
    std::size_t eol = section.find("\r\n");
    std::string_view line = section.substr(0, eol);
    section = eol == std::string_view::npos ? std::string_view() : section.substr(eol + 2);

    std::size_t colon = line.find(':');
    std::string_view name = colon == std::string_view::npos ? line : line.substr(0, colon);
    bool bad_name = name.empty() || trim(name).size() != name.size() ||
                    name.find_first_of("\r\n") != std::string_view::npos;
    if (colon == std::string_view::npos || bad_name) {
      note(FramingErrorKind::kMalformedHeaderLine, "'" + printable(line) + "'");
      continue;
    }
    std::string_view value = trim(line.substr(colon + 1));
    if (!equals_ignore_case(name, "Content-Length")) continue;  // Content-Type and unknowns

    std::optional<std::size_t> length = parse_length(value);
    if (!length) {
      return DecodedFrame(fail(FramingErrorKind::kInvalidContentLength, "'" + printable(value) + "'"));
    }
    lengths.push_back(*length);
  }

  if (lengths.empty()) {
    return DecodedFrame(fail(FramingErrorKind::kMissingContentLength, "no Content-Length header"));
  }
  bool all_agree = std::all_of(lengths.begin(), lengths.end(),
                               [&](std::size_t n) { return n == lengths.front(); });
  if (!all_agree) {
    return DecodedFrame(fail(FramingErrorKind::kDuplicateContentLength, "conflicting values"));
  }
  if (lengths.size() > 1) note(FramingErrorKind::kDuplicateContentLength, "repeated with the same value");

  std::size_t length = lengths.front();
  if (length > limits_.max_body_bytes) {
    // Reported before the first body byte arrives; the body is then skipped.
    note(FramingErrorKind::kBodyTooLarge, std::to_string(length) + " bytes exceeds the limit of " +
                                              std::to_string(limits_.max_body_bytes));
  }
  if (first_problem) {
    // The length is known, so the broken frame can be skipped and the stream continues.
    state_ = State::kSkippingBody;
    skip_remaining_ = length;
    return DecodedFrame(std::move(*first_problem));
  }
  state_ = State::kReadingBody;
  body_length_ = length;
  return std::nullopt;
}

FramingError FrameDecoder::fail(FramingErrorKind kind, std::string detail) {
  state_ = State::kFailed;
  failed_ = true;
  buffer_.clear();
  buffer_.shrink_to_fit();
  read_pos_ = scan_pos_ = 0;
  return FramingError{kind, std::move(detail), false};
}

// Drops consumed bytes from the front of the buffer once they dominate it, so
// appends stay amortised O(1) without the buffer growing forever.
void FrameDecoder::compact() {
  if (read_pos_ == 0) return;
  if (read_pos_ < 4096 && read_pos_ * 2 < buffer_.size()) return;
  buffer_.erase(0, read_pos_);
  scan_pos_ = scan_pos_ > read_pos_ ? scan_pos_ - read_pos_ : 0;
  read_pos_ = 0;
}

}  // namespace hlsched::protocol
