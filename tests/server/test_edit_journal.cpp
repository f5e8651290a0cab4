// EditJournal: ranges of an older text carried onto the current one.
#include <catch2/catch.hpp>

#include "lsp/edit_journal.h"

using hlsched::server::lsp::ByteRange;
using hlsched::server::lsp::EditJournal;
namespace plsp = hlsched::protocol::lsp;

TEST_CASE("edits before a range move it - edits after leave it", "[edit_journal]") {
  EditJournal journal;
  const ByteRange word{10, 15};
  journal.record(2, 0, 3);   // insert 3 bytes before
  journal.record(40, 5, 0);  // delete after
  auto mapped = journal.map_strict(word, 0);
  REQUIRE(mapped);
  CHECK(*mapped == ByteRange{13, 18});
  CHECK(journal.serial() == 2);
}

TEST_CASE("an edit inside a range invalidates it strictly but not loosely", "[edit_journal]") {
  EditJournal journal;
  journal.record(12, 1, 4);  // replace 1 byte inside [10, 20) by 4
  CHECK_FALSE(journal.map_strict({10, 20}, 0));
  auto loose = journal.map_loose({10, 20}, 0);
  REQUIRE(loose);
  CHECK(*loose == ByteRange{10, 23});
}

TEST_CASE("insertions at a range's ends keep its text intact", "[edit_journal]") {
  EditJournal journal;
  journal.record(10, 0, 2);  // at the start: moves it
  auto start = journal.map_strict({10, 15}, 0);
  REQUIRE(start);
  CHECK(*start == ByteRange{12, 17});
  journal.record(17, 0, 5);  // at the (new) end: leaves it
  auto end = journal.map_strict({10, 15}, 0);
  REQUIRE(end);
  CHECK(*end == ByteRange{12, 17});
}

TEST_CASE("a whole-text replacement and forgotten serials map nothing", "[edit_journal]") {
  EditJournal journal;
  journal.record(0, 0, 1);
  journal.record_replace_all();
  journal.record(0, 0, 1);
  CHECK_FALSE(journal.map_loose({5, 6}, 0));
  CHECK(journal.map_strict({5, 6}, 2));  // after the replacement: fine
  journal.forget_before(2);
  CHECK_FALSE(journal.map_strict({5, 6}, 1));
  CHECK(journal.map_strict({5, 6}, 2));
  CHECK(journal.serial() == 3);
}

TEST_CASE("apply_and_record records each change of a didChange at its byte offset", "[edit_journal]") {
  hlsched::protocol::TextDocument doc("hello\nwörld\n", 1);
  EditJournal journal;
  // Two changes in one notification: the second's position refers to the text after the first.
  std::vector<plsp::TextDocumentContentChangeEvent> changes(2);
  changes[0].range = plsp::Range{{0, 0}, {0, 0}};
  changes[0].text = ">> ";
  changes[1].range = plsp::Range{{1, 1}, {1, 2}};  // "ö" (1 UTF-16 unit, 2 bytes)
  changes[1].text = "o";
  apply_and_record(doc, journal, changes, 2);
  CHECK(doc.text() == ">> hello\nworld\n");
  CHECK(doc.version() == 2);
  CHECK(journal.serial() == 2);
  // "wörld" started at byte 6 of the old text; it is at 9 now and one byte shorter.
  auto mapped = journal.map_loose({6, 12}, 0);
  REQUIRE(mapped);
  CHECK(*mapped == ByteRange{9, 14});
}

TEST_CASE("apply_and_record is all or nothing", "[edit_journal]") {
  hlsched::protocol::TextDocument doc("abc", 1);
  EditJournal journal;
  std::vector<plsp::TextDocumentContentChangeEvent> changes(2);
  changes[0].range = plsp::Range{{0, 0}, {0, 1}};
  changes[0].text = "X";
  changes[1].range = plsp::Range{{0, 2}, {0, 1}};  // start after end
  CHECK_THROWS_AS(apply_and_record(doc, journal, changes, 2), hlsched::protocol::InvalidParamsError);
  CHECK(doc.text() == "abc");
  CHECK(doc.version() == 1);
  CHECK(journal.serial() == 0);
}
