#!/usr/bin/env bash
# What Halide 14's CUDA back end emits for a thread's 4 points along x, unrolled or vectorized,
# with ShiftInwards or GuardWithIf tails, and vectorized over buffers declared aligned: counts of
# the PTX memory instructions, branches and predicates in each (the PTX is embedded as text in the
# object). Why the schedule space unrolls points along x and never vectorizes them
# (docs/ARCHITECTURE.md, "The schedule space"; docs/PERFORMANCE.md, "Session fifteen").
#
#   scripts/bench/vectorize_ptx.sh        (needs libhalide14-0-dev and g++; no GPU)
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/probe.cpp" <<'CPP'
#include "Halide.h"
using namespace Halide;
int main() {
  // name, tail, vectorize, buffers declared aligned (min 0, row stride a multiple of 4)
  struct Variant { const char *name; TailStrategy tail; bool vectorize, aligned; };
  const Variant variants[] = {{"shift_unroll", TailStrategy::ShiftInwards, false, false},
                              {"shift_vectorize", TailStrategy::ShiftInwards, true, false},
                              {"guard_unroll", TailStrategy::GuardWithIf, false, false},
                              {"guard_vectorize", TailStrategy::GuardWithIf, true, false},
                              {"shift_vectorize_aligned", TailStrategy::ShiftInwards, true, true}};
  for (const Variant &v : variants) {
    ImageParam in(Float(32), 2, "in");
    Func f("f");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), xii("xii");
    f(x, y) = in(x, y) * 2.0f + in(x + 1, y) + in(x + 2, y);
    f.gpu_tile(x, y, xo, yo, xi, yi, 128, 8, v.tail).split(xi, xi, xii, 4, v.tail);
    if (v.vectorize) f.vectorize(xii); else f.unroll(xii);
    if (v.aligned) {
      in.dim(0).set_min(0);
      in.dim(1).set_stride((in.dim(1).stride() / 4) * 4);
      f.output_buffer().dim(0).set_min(0);
      f.output_buffer().dim(1).set_stride((f.output_buffer().dim(1).stride() / 4) * 4);
    }
    f.compile_to_object(std::string(v.name) + ".o", {in}, "f", Target("host-cuda-cuda_capability_86"));
  }
}
CPP
g++ -std=c++17 -O1 "$work/probe.cpp" -I/usr/include/halide14 -lHalide14 -o "$work/probe"
(cd "$work" && ./probe)
for o in shift_unroll shift_vectorize guard_unroll guard_vectorize shift_vectorize_aligned; do
  counts=$(strings -n 6 "$work/$o.o" | grep -oE "(ld|st)\.global(\.nc)?(\.v[24])?\.[a-z0-9]+|bra(\.uni)?|setp" |
           sort | uniq -c | awk '{printf "%s %s, ", $1, $2}')
  printf '%-24s %s\n' "$o" "${counts%, }"
done
