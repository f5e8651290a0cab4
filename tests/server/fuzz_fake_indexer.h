// The language-server fuzzer's stand-in for the libclang indexer: source indexes of random shapes
// chosen by the fuzzer's bytes, so that everything which reads an index (hover, code lenses, code
// actions, schedule edits, diagnostics placement, hlsched/documentStatus) meets what a real index
// can be and what it should never be but must survive:
//  - plausible: generator classes, methods, statements and Funcs found in the text by plain string
//    search (the fuzzer's snippets hold a Blur generator), every range inside the text;
//  - the same with some ranges bent: past the end of the text, reversed, empty, at SIZE_MAX;
//  - stale: the index of an older text of the same document (an index that took long);
//  - empty (no generator), with errors, huge (hundreds of generators and objects), or an
//    exception instead of an index.
// It runs where the server runs its index jobs: here, on the fuzzer's own thread, between any two
// messages.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <map>
#include <string>
#include <vector>

#include "lsp/document_scheduler.h"
#include "lsp/source_index.h"

namespace hlsched::server::testing {

class FakeIndexer {
 public:
  explicit FakeIndexer(FuzzedDataProvider &bytes) : bytes_(bytes) {}

  /// The index for `job` (or a throw), shaped by the next bytes of the input.
  lsp::SourceIndex index(const lsp::IndexJob &job);

 private:
  lsp::SourceIndex plausible(const lsp::DocumentSnapshot &snapshot);
  lsp::SourceIndex huge(const lsp::DocumentSnapshot &snapshot);
  void bend_ranges(lsp::SourceIndex &index);
  lsp::ByteRange bent(lsp::ByteRange range, std::size_t text_size);

  FuzzedDataProvider &bytes_;
  /// Earlier texts of each document, for stale indexes (a few per URI).
  std::map<std::string, std::vector<lsp::DocumentSnapshot>> history_;
};

}  // namespace hlsched::server::testing
