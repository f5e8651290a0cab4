// Test pipeline: a 65536 x 32768 uint8 image (2^31 elements, one more than an int32 can count)
// through a separable stencil, a lookup-table gather, a histogram and column sums. Several
// outputs share producers. Only scheduled and compiled (8 GiB of outputs are never run in CI).
#include "Halide.h"

namespace {

using namespace Halide;

class LargeImage : public Generator<LargeImage> {
public:
    Input<Buffer<uint8_t, 2>> input{"input"};
    Input<Buffer<float, 1>> lut{"lut"};  // 256 entries
    Output<Buffer<uint8_t, 2>> blurred{"blurred"};
    Output<Buffer<float, 2>> mapped{"mapped"};
    Output<Buffer<int32_t, 1>> histogram{"histogram"};
    Output<Buffer<int32_t, 1>> column_sums{"column_sums"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func wide("wide");
        wide(x, y) = cast<uint16_t>(clamped(x, y));
        Func blur_x("blur_x");
        blur_x(x, y) = wide(x - 1, y) + wide(x, y) + wide(x + 1, y);
        Func blur_y("blur_y");
        blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1);
        blurred(x, y) = cast<uint8_t>(blur_y(x, y) / 9);  // blur_y has two consumers

        // A gather: the index is data.
        Func index("index");
        index(x, y) = clamp(cast<int32_t>(blur_y(x, y) / 9), 0, 255);
        mapped(x, y) = lut(index(x, y)) * 2.0f;

        RDom r(0, input.width(), 0, input.height(), "r");
        Func counts("counts");
        counts(i) = 0;
        counts(cast<int32_t>(input(r.x, r.y))) += 1;  // 2^31 atomic updates
        histogram(i) = counts(i);

        RDom ry(0, input.height(), "ry");
        Func sums("sums");
        sums(x) = 0;
        sums(x) += cast<int32_t>(input(x, ry));
        column_sums(x) = sums(x);
    }

    void schedule() {
        input.set_estimates({{0, 65536}, {0, 32768}});
        lut.set_estimates({{0, 256}});
        blurred.set_estimates({{0, 65536}, {0, 32768}});
        mapped.set_estimates({{0, 65536}, {0, 32768}});
        histogram.set_estimates({{0, 256}});
        column_sums.set_estimates({{0, 65536}});
        // HLSCHED_SCHEDULE
    }

private:
    Var x{"x"}, y{"y"}, i{"i"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(LargeImage, large_image)
