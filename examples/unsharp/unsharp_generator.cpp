// Unsharp mask of an RGB float image: luma, separable Gaussian blur (sigma 1.5, radius 4),
// sharpened luma = luma + amount * (luma - blurred), and every channel rescaled by the ratio
// sharpened / luma (so chroma is kept), clamped to [0, 1].
#include <cmath>
#include <vector>

#include "Halide.h"

namespace {

using namespace Halide;

constexpr int kRadius = 4;
constexpr float kSigma = 1.5f;

// Normalized 1-D Gaussian weights for offsets -kRadius..kRadius, known at generator time.
std::vector<float> gaussian_weights() {
    std::vector<float> w(2 * kRadius + 1);
    float total = 0.0f;
    for (int i = -kRadius; i <= kRadius; i++) {
        w[i + kRadius] = std::exp(-(i * i) / (2.0f * kSigma * kSigma));
        total += w[i + kRadius];
    }
    for (float &v : w) v /= total;
    return w;
}

// One pass of the separable blur along x (dx = 1) or y (dy = 1).
Func blur_1d(Func in, const std::vector<float> &w, int dx, int dy, const std::string &name) {
    Var x("x"), y("y");
    Func out(name);
    Expr sum = 0.0f;
    for (int i = -kRadius; i <= kRadius; i++) sum += w[i + kRadius] * in(x + i * dx, y + i * dy);
    out(x, y) = sum;
    return out;
}

class Unsharp : public Generator<Unsharp> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"

    Input<Buffer<float, 3>> input{"input"};
    Input<float> amount{"amount", 1.0f, 0.0f, 8.0f};
    Output<Buffer<float, 3>> output{"output"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        gray(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);

        const std::vector<float> w = gaussian_weights();
        blur_x = blur_1d(gray, w, 1, 0, "blur_x");
        Func blur_y = blur_1d(blur_x, w, 0, 1, "blur_y");

        Func sharpen{"sharpen"};
        sharpen(x, y) = gray(x, y) + amount * (gray(x, y) - blur_y(x, y));
        // Guard against black pixels (luma 0): leave them as they are.
        ratio(x, y) = select(gray(x, y) > 1e-6f, sharpen(x, y) / gray(x, y), 1.0f);
        output(x, y, c) = clamp(ratio(x, y) * input(x, y, c), 0.0f, 1.0f);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        amount.set_estimate(1.0f);
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        if (schedule_kind.value() == "manual") {
            // One kernel. 32x32 output tiles per block, 32x8 threads, each thread 4 rows x 3
            // channels (register blocking: the per-pixel ratio is computed once, in registers,
            // and reused by the three unrolled channels). Channels are innermost and unrolled so
            // all three share one blur evaluation.
            output.bound(c, 0, 3)
                .reorder(c, x, y)
                .gpu_tile(x, y, xo, yo, xi, yi, 32, 32, TailStrategy::GuardWithIf)
                .split(yi, yi, yii, 4, TailStrategy::GuardWithIf)
                .reorder(c, yii, xi, yi, xo, yo)
                .unroll(yii)
                .unroll(c);
            // blur_y and sharpen inline into ratio, which lives in registers per thread (a
            // fixed 1x4 footprint, so it is not demoted to a heap allocation at the edges).
            ratio.compute_at(output, xi).bound_extent(y, 4).unroll(x).unroll(y);
            // The horizontal pass (32 x 40) and the luma (40 x 40) are staged in shared memory
            // (~11.5 KB per block); 8 thread rows cover them with 5 rows per thread.
            blur_x.compute_at(output, xo)
                .split(y, y, yi, 5, TailStrategy::RoundUp)
                .unroll(yi)
                .gpu_threads(x, y);
            gray.compute_at(output, xo)
                .split(y, y, yi, 5, TailStrategy::RoundUp)
                .unroll(yi)
                .gpu_threads(x, y);
        }
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, yii{"yii"};
    Func gray{"gray"}, ratio{"ratio"};
    Func blur_x;  // defined (and named) by blur_1d
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Unsharp, unsharp)
