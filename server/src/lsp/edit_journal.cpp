#include "lsp/edit_journal.h"

#include <array>
#include <utility>

namespace hlsched::server::lsp {

void EditJournal::record(std::size_t offset, std::size_t removed, std::size_t inserted) {
  edits_.push_back({offset, removed, inserted, false});
}

void EditJournal::record_replace_all() { edits_.push_back({0, 0, 0, true}); }

template <class Step>
std::optional<ByteRange> EditJournal::map(ByteRange range, std::uint64_t since, Step step) const {
  if (since < first_serial_ || since > serial()) return std::nullopt;
  for (std::size_t i = since - first_serial_; i < edits_.size(); i++) {
    const Edit &e = edits_[i];
    if (e.replaces_all) return std::nullopt;
    if (!step(range, e)) return std::nullopt;
  }
  return range;
}

namespace {

// Where `offset` goes when [o, o+removed) becomes [o, o+inserted). An offset inside the removed
// bytes goes to `inside` (the start or the end of the inserted text).
std::size_t shift(std::size_t offset, std::size_t o, std::size_t removed, std::size_t inserted, bool to_end) {
  if (offset < o) return offset;
  if (offset > o + removed || (offset == o + removed && (removed > 0 || to_end))) return offset + inserted - removed;
  return to_end ? o + inserted : o;
}

}  // namespace

std::optional<ByteRange> EditJournal::map_strict(ByteRange range, std::uint64_t since) const {
  return map(range, since, [](ByteRange &r, const Edit &e) {
    if (e.offset >= r.end) return true;  // after the range (or an insertion at its end)
    if (e.offset + e.removed <= r.begin) {  // before the range (or an insertion at its start)
      r.begin = r.begin + e.inserted - e.removed;
      r.end = r.end + e.inserted - e.removed;
      return true;
    }
    return false;  // changes bytes inside
  });
}

std::optional<ByteRange> EditJournal::map_loose(ByteRange range, std::uint64_t since) const {
  return map(range, since, [](ByteRange &r, const Edit &e) {
    r.begin = shift(r.begin, e.offset, e.removed, e.inserted, /*to_end=*/false);
    r.end = shift(r.end, e.offset, e.removed, e.inserted, /*to_end=*/true);
    return true;
  });
}

std::optional<std::size_t> EditJournal::map_offset(std::size_t offset, std::uint64_t since) const {
  auto mapped = map_strict({offset, offset}, since);
  if (!mapped) return std::nullopt;
  return mapped->begin;
}

void EditJournal::forget_before(std::uint64_t serial_to_keep) {
  while (first_serial_ < serial_to_keep && !edits_.empty()) {
    edits_.pop_front();
    first_serial_++;
  }
}

void apply_and_record(protocol::TextDocument &document, EditJournal &journal,
                      const std::vector<protocol::lsp::TextDocumentContentChangeEvent> &changes,
                      std::int32_t new_version) {
  protocol::TextDocument updated = document;
  std::vector<std::pair<bool, std::array<std::size_t, 3>>> recorded;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const auto &change = changes[i];
    try {
      if (!change.range) {
        recorded.push_back({true, {0, 0, 0}});
      } else {
        if (change.range->end < change.range->start) throw protocol::InvalidParamsError("range", "start is after end");
        const std::size_t begin = updated.offset_at(change.range->start);
        const std::size_t end = updated.offset_at(change.range->end);
        recorded.push_back({false, {begin, end - begin, change.text.size()}});
      }
      updated.apply_change(change);
    } catch (protocol::InvalidParamsError &e) {
      e.prepend_field("[" + std::to_string(i) + "]");
      e.prepend_field("contentChanges");
      throw;
    }
  }
  updated.apply_changes({}, new_version);
  document = std::move(updated);
  for (const auto &[all, edit] : recorded) {
    if (all) journal.record_replace_all();
    else journal.record(edit[0], edit[1], edit[2]);
  }
}

}  // namespace hlsched::server::lsp
