// Test pipeline: scans along x (each element depends on the previous one, parallel over rows),
// a scan along y, and several outputs sharing producers: a stencil read by three outputs, the
// row scans read by two.
#include "Halide.h"

namespace {

using namespace Halide;

class ScansShared : public Generator<ScansShared> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> prefix{"prefix"};
    Output<Buffer<float, 2>> normalized{"normalized"};
    Output<Buffer<float, 2>> smoothed{"smoothed"};
    Output<Buffer<float, 1>> row_totals{"row_totals"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func smooth("smooth");
        smooth(x, y) = (clamped(x - 1, y) + 2.0f * clamped(x, y) + clamped(x + 1, y)) * 0.25f;

        RDom rx(1, input.width() - 1, "rx");
        Func running("running");
        running(x, y) = smooth(x, y);
        running(rx, y) = running(rx - 1, y) + smooth(rx, y);  // a scan along x

        // A first-order recursive filter down the columns.
        RDom ry(1, input.height() - 1, "ry");
        Func decayed("decayed");
        decayed(x, y) = smooth(x, y);
        decayed(x, ry) = 0.5f * decayed(x, ry - 1) + 0.5f * smooth(x, ry);

        prefix(x, y) = running(x, y);
        row_totals(y) = running(input.width() - 1, y);
        normalized(x, y) = running(x, y) / max(row_totals(y), 1e-3f);
        smoothed(x, y) = decayed(x, y) + smooth(x, y);
    }

    void schedule() {
        input.set_estimates({{0, 4096}, {0, 4096}});
        prefix.set_estimates({{0, 4096}, {0, 4096}});
        normalized.set_estimates({{0, 4096}, {0, 4096}});
        smoothed.set_estimates({{0, 4096}, {0, 4096}});
        row_totals.set_estimates({{0, 4096}});
        // HLSCHED_SCHEDULE
    }

private:
    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ScansShared, scans_shared)
