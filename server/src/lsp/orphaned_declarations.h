// The Var and RVar declarations that a schedule replacement leaves unused. A hand-written
// schedule usually declares its own loop names (`Var xo, yo, xi, yi;` in schedule() or in
// generate(), or as members: `Var x{"x"}, xo{"xo"};`); the suggestion that replaces it declares
// its own inside its block, so the old ones would stay behind as clutter. A declaration goes when
// every use of its name was inside the removed statements; a Var the algorithm (or any kept code)
// names stays, and so does one that was unused before.
//
// Uses are found in the text (whole words outside comments and literals), over the name's scope:
// the rest of the enclosing block for a local, the whole file for a member. A name that is only
// mentioned elsewhere keeps its declaration: the check errs on the side of keeping.
// Threading: pure functions.
#pragma once

#include <string>
#include <vector>

#include "lsp/source_index.h"

namespace hlsched::server::lsp {

/// One edit of a declaration statement: the whole statement goes (`whole_statement`, `text` empty),
/// or its declarators are rewritten to those that stay (`Var x{"x"}, xo{"xo"};` -> `x{"x"}`).
struct DeclarationEdit {
  ByteRange range;
  std::string text;
  bool whole_statement = false;
};

/// The edits that drop the Vars/RVars of `g` used only inside `removed` (statement ranges of
/// `text`, the indexed text). Non-overlapping, none inside `removed`, in text order.
std::vector<DeclarationEdit> orphaned_declarations(const std::string &text, const GeneratorClass &g,
                                                   const std::vector<ByteRange> &removed);

}  // namespace hlsched::server::lsp
