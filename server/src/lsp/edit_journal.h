// Maps byte offsets in an older version of a document onto its current text.
//
// Analyses and indexes describe the text they were computed from; the editor keeps typing. Each
// applied edit is recorded here as (offset, bytes removed, bytes inserted) with a serial number;
// a range recorded at serial S is carried through every later edit. Strict mapping refuses ranges
// that an edit touched inside (their text changed: an edit there could destroy the user's typing),
// loose mapping only moves the ends (good enough to say "the cursor is in this method").
//
// Threading: not synchronised; owned by the document it describes (the server's I/O thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "hlsched/protocol/text_document.h"
#include "lsp/source_index.h"

namespace hlsched::server::lsp {

class EditJournal {
 public:
  /// Serial of the current text: the number of edits recorded so far.
  std::uint64_t serial() const { return first_serial_ + edits_.size(); }

  /// Bytes [offset, offset + removed) were replaced by `inserted` bytes.
  void record(std::size_t offset, std::size_t removed, std::size_t inserted);
  /// The whole text was replaced: nothing from before maps across this edit.
  void record_replace_all();

  /// `range` in the text at serial `since`, in the current text; nullopt when an edit since then
  /// changed bytes inside it (insertions at its very start or end leave it intact), or when
  /// `since` was forgotten.
  std::optional<ByteRange> map_strict(ByteRange range, std::uint64_t since) const;
  /// Like map_strict, but edits inside the range only move its end (nullopt only across a
  /// whole-text replacement or a forgotten serial).
  std::optional<ByteRange> map_loose(ByteRange range, std::uint64_t since) const;
  /// A single offset (as the start of an empty range, strictly).
  std::optional<std::size_t> map_offset(std::size_t offset, std::uint64_t since) const;

  /// Drops the edits before `serial` (nobody holds ranges that old any more).
  void forget_before(std::uint64_t serial);

 private:
  struct Edit {
    std::size_t offset = 0, removed = 0, inserted = 0;
    bool replaces_all = false;
  };
  template <class Step>
  std::optional<ByteRange> map(ByteRange range, std::uint64_t since, Step step) const;

  std::deque<Edit> edits_;
  std::uint64_t first_serial_ = 0;  ///< serial before edits_.front()
};

/// Applies one didChange's content changes to `document` (all or nothing, like
/// TextDocument::apply_changes) and records each in `journal`. Throws InvalidParamsError.
void apply_and_record(protocol::TextDocument &document, EditJournal &journal,
                      const std::vector<protocol::lsp::TextDocumentContentChangeEvent> &changes,
                      std::int32_t new_version);

}  // namespace hlsched::server::lsp
