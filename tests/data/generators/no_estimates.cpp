// Test pipeline without estimates on one input and the output: scheduling must name them.
#include "Halide.h"

namespace {

using namespace Halide;

class NoEstimates : public Generator<NoEstimates> {
public:
    Input<Buffer<float, 2>> image{"image"};
    Input<Buffer<float, 2>> weights{"weights"};
    Output<Buffer<float, 2>> result{"result"};

    void generate() {
        Var x("x"), y("y");
        result(x, y) = image(x, y) * weights(x, y);
    }

    void schedule() {
        weights.set_estimates({{0, 64}, {0, 64}});
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(NoEstimates, no_estimates)
