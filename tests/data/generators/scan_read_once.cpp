// Test pipeline: a scan along x whose only consumer reads one column of it. Halide still runs
// the scan, and the pure definition that starts it, over whole rows: every point the update
// writes or reads of the Func (the random pipelines' `mix(y) = ... iir(2160, y) ...`).
#include "Halide.h"

namespace {

using namespace Halide;

class ScanReadOnce : public Generator<ScanReadOnce> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 1>> middle{"middle"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        RDom r(1, 999, "r");
        Func filtered("filtered");
        filtered(x, y) = clamped(x, y);
        filtered(r, y) = filtered(r - 1, y) * 0.25f + filtered(r, y) * 0.75f;  // recursive along x
        middle(y) = filtered(500, y);
    }

    void schedule() {
        input.set_estimates({{0, 1000}, {0, 600}});
        middle.set_estimates({{0, 600}});
        // HLSCHED_SCHEDULE
    }

private:
    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ScanReadOnce, scan_read_once)
