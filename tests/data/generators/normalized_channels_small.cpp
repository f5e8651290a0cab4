// Test pipeline for a stage that reads one Func at its own channel and at a constant channel, as
// interpolate's output divides each colour by the alpha channel: out(x, y, c) reads
// premultiplied(x, y, c) and premultiplied(x, y, 3). Each call is affine; their merged region
// along c (min(c, 3) .. max(c, 3)) is not.
#include "Halide.h"

namespace {

using namespace Halide;

class NormalizedChannelsSmall : public Generator<NormalizedChannelsSmall> {
public:
    Input<Buffer<float, 3>> input{"input"};  // (x, y, c), c = r, g, b, alpha
    Output<Buffer<float, 3>> out{"out"};

    void generate() {
        Var x("x"), y("y"), c("c");
        Func premultiplied("premultiplied");
        premultiplied(x, y, c) = input(x, y, c) * input(x, y, 3);
        out(x, y, c) = premultiplied(x, y, c) / max(premultiplied(x, y, 3), 1e-3f);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 1024}, {0, 4}});
        out.set_estimates({{0, 1536}, {0, 1024}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(NormalizedChannelsSmall, normalized_channels_small)
