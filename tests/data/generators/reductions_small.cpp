// Test pipeline: a reduction over an RDom, a histogram (scatter), a scan, an update definition
// that is parallel over a pure var, all made of locals of generate().
#include "Halide.h"

namespace {

using namespace Halide;

class ReductionsSmall : public Generator<ReductionsSmall> {
public:
    Input<Buffer<uint8_t, 2>> input{"input"};
    Output<Buffer<int32_t, 1>> column_sums{"column_sums"};
    Output<Buffer<int32_t, 1>> cdf{"cdf"};

    void generate() {
        Var x("x"), y("y"), i("i");
        Func widened("widened");
        widened(x, y) = cast<int32_t>(input(x, y));

        RDom ry(0, input.height(), "ry");
        Func sums("sums");
        sums(x) = 0;
        sums(x) += widened(x, ry);  // parallel over x, serial over ry
        column_sums(x) = sums(x) * 2;

        RDom r(0, input.width(), 0, input.height(), "r");
        Func hist("hist");
        hist(i) = 0;
        hist(clamp(cast<int32_t>(input(r.x, r.y)), 0, 255)) += 1;  // a scatter: no pure var

        RDom s(1, 255, "s");
        Func scan("scan");
        scan(i) = hist(i);
        scan(s) = scan(s - 1) + hist(s);  // a scan: serial
        cdf(i) = scan(i);
    }

    void schedule() {
        input.set_estimates({{0, 640}, {0, 480}});
        column_sums.set_estimates({{0, 640}});
        cdf.set_estimates({{0, 256}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ReductionsSmall, reductions_small)
