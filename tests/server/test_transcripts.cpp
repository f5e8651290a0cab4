// Transcript tests: each file in tests/server/transcripts/ is a conversation with an in-process
// session (fake analyzer, see lsp_session_harness.h). Lines:
//   # ...                     a comment
//   !index                    use the real libclang indexer
//   !max-message-bytes N      the session's message limit
//   !token T                  the session requires initializationOptions.token == T
//   --> {json}                send a message (framed); "@file:PATH" / "@uri:PATH" placeholders
//   --> raw TEXT              send TEXT as is (\r \n \\ escapes)
//   --> filler N              send N spaces
//   --> poll {request} until {result}
//                             send the request (fresh ids) every 50 ms until its result matches
//   <-- {json}                expect a message: with "method", the next notification with that
//                             method that matches (others with the method are skipped); without,
//                             the next response, which must match (see json_matches)
//   == silent MS              expect no message for MS milliseconds
//   == exit N                 expect the session to end with exit code N
#include <catch2/catch.hpp>

#include <fstream>

#include "lsp_session_harness.h"
#include "test_support.h"

using namespace hlsched::server::testing;
using nlohmann::json;

namespace {

std::string unescape(const std::string &text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); i++) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      char c = text[++i];
      out += c == 'r' ? '\r' : c == 'n' ? '\n' : c;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool is_response(const json &m) { return m.is_array() || (m.contains("id") && !m.contains("method")); }

void run_transcript(const std::filesystem::path &file) {
  std::ifstream in(file);
  std::vector<std::pair<int, std::string>> lines;
  std::string line;
  for (int number = 1; std::getline(in, line); number++) lines.emplace_back(number, line);

  SessionHarness::Options options;
  for (const auto &[number, text] : lines) {
    if (text == "!index") options.index = true;
    if (text.rfind("!max-message-bytes ", 0) == 0) options.max_message_bytes = std::stoul(text.substr(19));
    if (text.rfind("!token ", 0) == 0) options.token = text.substr(7);
  }
  SessionHarness session(options);
  std::deque<json> backlog;  // messages received but not yet matched

  for (const auto &[number, text] : lines) {
    INFO(file.filename().string() << ":" << number << ": " << text.substr(0, 200));
    if (text.empty() || text[0] == '#' || text[0] == '!') continue;
    if (text.rfind("--> raw ", 0) == 0) {
      session.send_raw(unescape(text.substr(8)));
    } else if (text.rfind("--> poll ", 0) == 0) {
      const std::size_t until = text.find(" until ");
      REQUIRE(until != std::string::npos);
      json request = expand_placeholders(json::parse(text.substr(9, until - 9)));
      const json expected = expand_placeholders(json::parse(text.substr(until + 7)));
      std::string why;
      bool matched = false;
      for (int attempt = 0; attempt < 600 && !matched; attempt++) {
        request["id"] = "poll-" + std::to_string(number) + "-" + std::to_string(attempt);
        session.send(request);
        for (;;) {
          std::optional<json> m = session.next();
          if (!m) FAIL("no answer to " << request.dump());
          if (!is_response(*m) || (*m)["id"] != request["id"]) {
            backlog.push_back(*m);
            continue;
          }
          matched = m->contains("result") && json_matches(expected, (*m)["result"], why);
          break;
        }
        if (!matched) session.run_for(std::chrono::milliseconds(50));
      }
      if (!matched) FAIL("poll never matched: " << why);
    } else if (text.rfind("--> filler ", 0) == 0) {
      session.send_raw(std::string(std::stoul(text.substr(11)), ' '));
    } else if (text.rfind("--> ", 0) == 0) {
      session.send(expand_placeholders(json::parse(text.substr(4))));
    } else if (text.rfind("<-- ", 0) == 0) {
      const json expected = expand_placeholders(json::parse(text.substr(4)));
      const bool want_response = !expected.contains("method");
      std::string why = "no message";
      auto match_backlog = [&]() {
        for (std::size_t i = 0; i < backlog.size(); i++) {
          const json &m = backlog[i];
          if (want_response != is_response(m)) continue;
          if (!want_response && m["method"] != expected["method"]) continue;
          if (json_matches(expected, m, why)) {
            backlog.erase(backlog.begin() + long(i));
            return true;
          }
          if (want_response) FAIL("response does not match: " << why);
          backlog.erase(backlog.begin() + long(i--));  // a notification of that method that does not match
        }
        return false;
      };
      while (!match_backlog()) {
        std::optional<json> m = session.next();
        if (!m) FAIL("timed out waiting for " << expected.dump() << "; last mismatch: " << why);
        backlog.push_back(*m);
      }
    } else if (text.rfind("== silent ", 0) == 0) {
      std::optional<json> m = session.next(std::chrono::milliseconds(std::stoi(text.substr(10))));
      if (m) FAIL("expected silence, got " << m->dump());
    } else if (text.rfind("== exit ", 0) == 0) {
      // Up to 30 s: ends at once when the session exits; a loaded machine may be slow to get there.
      for (int i = 0; i < 6000 && !session.exit_code(); i++) session.run_for(std::chrono::milliseconds(5));
      REQUIRE(session.exit_code());
      CHECK(*session.exit_code() == std::stoi(text.substr(8)));
    } else {
      FAIL("unknown transcript line");
    }
  }
}

}  // namespace

TEST_CASE("LSP transcripts", "[transcripts]") {
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(source_path("tests/server/transcripts")))
    if (entry.path().extension() == ".lsp") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 5);
  for (const auto &file : files) {
    DYNAMIC_SECTION(file.filename().string()) { run_transcript(file); }
  }
}
