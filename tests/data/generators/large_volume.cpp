// Test pipeline: a 2048 x 1024 x 1024 float volume (2^31 elements, 8 GiB) through a 3-D stencil,
// a pointwise stage and a maximum projection along z. Only scheduled and compiled.
#include "Halide.h"

namespace {

using namespace Halide;

class LargeVolume : public Generator<LargeVolume> {
public:
    Input<Buffer<float, 3>> volume{"volume"};
    Output<Buffer<float, 3>> smoothed{"smoothed"};
    Output<Buffer<float, 2>> projection{"projection"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(volume);
        Func laplacian("laplacian");
        laplacian(x, y, z) = clamped(x - 1, y, z) + clamped(x + 1, y, z) + clamped(x, y - 1, z) +
                             clamped(x, y + 1, z) + clamped(x, y, z - 1) + clamped(x, y, z + 1) -
                             6.0f * clamped(x, y, z);
        smoothed(x, y, z) = clamped(x, y, z) + 0.1f * laplacian(x, y, z);

        RDom rz(0, volume.dim(2).extent(), "rz");
        Func deepest("deepest");
        deepest(x, y) = maximum(abs(laplacian(x, y, rz)));
        projection(x, y) = sqrt(deepest(x, y));
    }

    void schedule() {
        volume.set_estimates({{0, 2048}, {0, 1024}, {0, 1024}});
        smoothed.set_estimates({{0, 2048}, {0, 1024}, {0, 1024}});
        projection.set_estimates({{0, 2048}, {0, 1024}});
        // HLSCHED_SCHEDULE
    }

private:
    Var x{"x"}, y{"y"}, z{"z"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(LargeVolume, large_volume)
