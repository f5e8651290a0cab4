#include "hlsched/protocol/framing.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace hlsched::protocol;

namespace {

// Everything the decoder produced for `stream`, fed in `chunk`-byte pieces.
struct Decoded {
  std::vector<std::string> bodies;
  std::vector<FramingError> errors;
};

Decoded decode_all(FrameDecoder& decoder, const std::string& stream, std::size_t chunk) {
  Decoded out;
  for (std::size_t i = 0; i < stream.size(); i += chunk) {
    decoder.feed(std::string_view(stream).substr(i, chunk));
    while (auto frame = decoder.next()) {
      if (auto* body = std::get_if<std::string>(&*frame)) out.bodies.push_back(*body);
      else out.errors.push_back(std::get<FramingError>(*frame));
    }
  }
  return out;
}

Decoded decode_all(const std::string& stream, FrameLimits limits = {}) {
  FrameDecoder decoder(limits);
  return decode_all(decoder, stream, stream.size() + 1);
}

}  // namespace

TEST_CASE("encode_frame writes Content-Length and the body") {
  CHECK(encode_frame("{}") == "Content-Length: 2\r\n\r\n{}");
  CHECK(encode_frame("") == "Content-Length: 0\r\n\r\n");
  // Length counts bytes, not characters.
  CHECK(encode_frame("\xC3\xA9") == "Content-Length: 2\r\n\r\n\xC3\xA9");
}

TEST_CASE("decoder yields bodies for back-to-back frames fed at once") {
  std::string stream = encode_frame(R"({"a":1})") + encode_frame("") + encode_frame("[1,2]");
  Decoded out = decode_all(stream);
  REQUIRE(out.errors.empty());
  CHECK(out.bodies == std::vector<std::string>{R"({"a":1})", "", "[1,2]"});
}

TEST_CASE("decoder handles a stream split at every byte boundary") {
  const std::string body1 = R"({"jsonrpc":"2.0","method":"x","params":{"s":"héllo 😀"}})";
  const std::string body2 = "{}";
  const std::string stream = "Content-Length: " + std::to_string(body1.size()) +
                             "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body1 +
                             encode_frame(body2);
  for (std::size_t split = 0; split <= stream.size(); ++split) {
    FrameDecoder decoder;
    std::vector<std::string> bodies;
    for (std::string_view part : {std::string_view(stream).substr(0, split), std::string_view(stream).substr(split)}) {
      decoder.feed(part);
      while (auto frame = decoder.next()) {
        REQUIRE(std::holds_alternative<std::string>(*frame));
        bodies.push_back(std::get<std::string>(*frame));
      }
    }
    INFO("split at " << split);
    CHECK(bodies == std::vector<std::string>{body1, body2});
    CHECK(decoder.buffered_bytes() == 0);
  }
}

TEST_CASE("decoder handles every chunk size, down to single bytes") {
  std::string stream;
  std::vector<std::string> expected;
  for (int i = 0; i < 20; ++i) {
    expected.push_back("{\"i\":" + std::to_string(i) + ",\"pad\":\"" + std::string(i * 7, 'x') + "\"}");
    stream += encode_frame(expected.back());
  }
  for (std::size_t chunk = 1; chunk <= 64; ++chunk) {
    FrameDecoder decoder;
    Decoded out = decode_all(decoder, stream, chunk);
    INFO("chunk " << chunk);
    CHECK(out.errors.empty());
    CHECK(out.bodies == expected);
  }
}

TEST_CASE("header names are case-insensitive and values may have spaces") {
  Decoded out = decode_all("content-length:   2  \r\nCONTENT-TYPE: x\r\n\r\n{}");
  REQUIRE(out.errors.empty());
  CHECK(out.bodies == std::vector<std::string>{"{}"});
}

TEST_CASE("unknown headers are ignored") {
  Decoded out = decode_all("X-Custom: 1\r\nContent-Length: 2\r\n\r\n{}");
  CHECK(out.errors.empty());
  CHECK(out.bodies.size() == 1);
}

TEST_CASE("missing Content-Length is unrecoverable") {
  FrameDecoder decoder;
  Decoded out = decode_all(decoder, "Content-Type: x\r\n\r\n{}" + encode_frame("{}"), 1000);
  REQUIRE(out.errors.size() == 1);
  CHECK(out.errors[0].kind == FramingErrorKind::kMissingContentLength);
  CHECK_FALSE(out.errors[0].recoverable);
  CHECK(out.bodies.empty());  // nothing after a fatal error
  CHECK_FALSE(decoder.healthy());
  decoder.feed(encode_frame("{}"));
  CHECK_FALSE(decoder.next().has_value());
}

TEST_CASE("invalid Content-Length values are unrecoverable") {
  for (std::string value : {"", "abc", "-1", "+2", "1.5", "0x10", "2 3", "99999999999999999999999999"}) {
    Decoded out = decode_all("Content-Length: " + value + "\r\n\r\n{}");
    INFO("value '" << value << "'");
    REQUIRE(out.errors.size() == 1);
    CHECK(out.errors[0].kind == FramingErrorKind::kInvalidContentLength);
    CHECK_FALSE(out.errors[0].recoverable);
  }
}

TEST_CASE("duplicate Content-Length") {
  SECTION("conflicting values are unrecoverable") {
    Decoded out = decode_all("Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" + encode_frame("{}"));
    REQUIRE(out.errors.size() == 1);
    CHECK(out.errors[0].kind == FramingErrorKind::kDuplicateContentLength);
    CHECK_FALSE(out.errors[0].recoverable);
    CHECK(out.bodies.empty());
  }
  SECTION("equal values: the frame is skipped and the stream continues") {
    Decoded out = decode_all("Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}" + encode_frame("[]"));
    REQUIRE(out.errors.size() == 1);
    CHECK(out.errors[0].kind == FramingErrorKind::kDuplicateContentLength);
    CHECK(out.errors[0].recoverable);
    CHECK(out.bodies == std::vector<std::string>{"[]"});
  }
}

TEST_CASE("malformed header line skips the frame when the length is known") {
  for (std::string line : {"garbage", ": no name", " Content-Type: x", "\r"}) {
    Decoded out = decode_all("Content-Length: 2\r\n" + line + "\r\n\r\n{}" + encode_frame("[]"));
    INFO("line '" << line << "'");
    REQUIRE(out.errors.size() == 1);
    CHECK(out.errors[0].kind == FramingErrorKind::kMalformedHeaderLine);
    CHECK(out.errors[0].recoverable);
    CHECK(out.bodies == std::vector<std::string>{"[]"});
  }
}

TEST_CASE("malformed header without a length is unrecoverable") {
  Decoded out = decode_all("garbage\r\n\r\n{}");
  REQUIRE(out.errors.size() == 1);
  CHECK(out.errors[0].kind == FramingErrorKind::kMissingContentLength);
  CHECK_FALSE(out.errors[0].recoverable);
}

TEST_CASE("header section over the limit is refused without waiting for its end") {
  FrameLimits limits;
  limits.max_header_bytes = 64;
  FrameDecoder decoder(limits);
  decoder.feed("Content-Length: 2\r\nX-Pad: " + std::string(100, 'p'));
  auto frame = decoder.next();
  REQUIRE(frame.has_value());
  const auto& error = std::get<FramingError>(*frame);
  CHECK(error.kind == FramingErrorKind::kHeaderTooLong);
  CHECK_FALSE(error.recoverable);
  CHECK(decoder.buffered_bytes() == 0);
}

TEST_CASE("a complete header just under the limit is accepted") {
  FrameLimits limits;
  std::string header = "Content-Length: 2\r\nX: ";
  limits.max_header_bytes = header.size() + 10 + 4;
  header += std::string(10, 'y') + "\r\n\r\n";
  Decoded out = decode_all(header + "{}", limits);
  CHECK(out.errors.empty());
  CHECK(out.bodies.size() == 1);
}

TEST_CASE("oversized body is refused at the header and skipped without buffering") {
  FrameLimits limits;
  limits.max_body_bytes = 1000;
  FrameDecoder decoder(limits);
  decoder.feed("Content-Length: 5000\r\n\r\n");
  auto frame = decoder.next();
  REQUIRE(frame.has_value());  // reported before any body byte arrived
  const auto& error = std::get<FramingError>(*frame);
  CHECK(error.kind == FramingErrorKind::kBodyTooLarge);
  CHECK(error.recoverable);
  CHECK(decoder.healthy());

  // Stream the 5000-byte body in pieces; nothing is retained.
  std::string piece(250, 'z');
  for (int i = 0; i < 20; ++i) {
    decoder.feed(piece);
    CHECK(decoder.buffered_bytes() == 0);
    CHECK_FALSE(decoder.next().has_value());
  }
  decoder.feed(encode_frame("{\"next\":true}"));
  auto next = decoder.next();
  REQUIRE(next.has_value());
  CHECK(std::get<std::string>(*next) == "{\"next\":true}");
}

TEST_CASE("oversized body followed by a frame in the same chunk, byte by byte") {
  FrameLimits limits;
  limits.max_body_bytes = 10;
  std::string stream = encode_frame(std::string(50, 'q')) + encode_frame("ok") + encode_frame(std::string(11, 'r')) +
                       encode_frame(std::string(10, 's'));
  for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{7}, stream.size()}) {
    FrameDecoder decoder(limits);
    Decoded out = decode_all(decoder, stream, chunk);
    INFO("chunk " << chunk);
    REQUIRE(out.errors.size() == 2);
    CHECK(out.errors[0].kind == FramingErrorKind::kBodyTooLarge);
    CHECK(out.errors[1].kind == FramingErrorKind::kBodyTooLarge);
    CHECK(out.bodies == std::vector<std::string>{"ok", std::string(10, 's')});
  }
}

TEST_CASE("default body limit is 64 MiB") {
  CHECK(FrameLimits{}.max_body_bytes == 64u * 1024 * 1024);
  FrameDecoder decoder;
  decoder.feed("Content-Length: 67108865\r\n\r\n");
  auto frame = decoder.next();
  REQUIRE(frame.has_value());
  CHECK(std::get<FramingError>(*frame).kind == FramingErrorKind::kBodyTooLarge);
}

TEST_CASE("a partial frame stays buffered until complete") {
  FrameDecoder decoder;
  decoder.feed("Content-Length: 4\r\n\r\nab");
  CHECK_FALSE(decoder.next().has_value());
  CHECK(decoder.buffered_bytes() == 2);
  decoder.feed("cd");
  auto frame = decoder.next();
  REQUIRE(frame.has_value());
  CHECK(std::get<std::string>(*frame) == "abcd");
}

TEST_CASE("framing error kinds have readable names") {
  CHECK(std::string(to_string(FramingErrorKind::kBodyTooLarge)) == "body too large");
  CHECK(std::string(to_string(FramingErrorKind::kHeaderTooLong)) == "header section too long");
}
