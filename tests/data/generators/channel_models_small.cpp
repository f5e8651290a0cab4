// Test pipeline for a Func computed per thread under a loop of channels inside each thread: a
// per-pixel model (two coefficients, model(x, y, 0..1), from the pixel's three channels) applied
// to each channel of the pixel, as bgu's output applies its sliced models. The output's three
// channels run unrolled in each thread and read the model's values at their own pixel:
// registers, computed once per pixel, not once per channel.
#include "Halide.h"

namespace {

using namespace Halide;

class ChannelModelsSmall : public Generator<ChannelModelsSmall> {
public:
    Input<Buffer<float, 3>> input{"input"};  // (x, y, c)
    Output<Buffer<float, 3>> out{"out"};

    void generate() {
        Var x("x"), y("y"), c("c"), k("k");
        Func model("model");
        Expr sum = input(x, y, 0) + input(x, y, 1) + input(x, y, 2);
        model(x, y, k) = select(k == 0, 1.0f / (sum * sum + 1.0f), sqrt(sum * sum + 0.5f));
        out(x, y, c) = input(x, y, c) * model(x, y, 0) + model(x, y, 1);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 1024}, {0, 3}});
        out.set_estimates({{0, 1536}, {0, 1024}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ChannelModelsSmall, channel_models_small)
