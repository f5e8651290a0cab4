// Bilateral filter of a grayscale float image through a bilateral grid: splat (per-cell
// histogram of value and weight over intensity bins), 5-tap [1 4 6 4 1] blur along z, x and y,
// then trilinear slicing and normalization.
#include "Halide.h"

namespace {

using namespace Halide;

class BilateralGrid : public Generator<BilateralGrid> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"
    GeneratorParam<int> s_sigma{"s_sigma", 8};  // spatial cell size in pixels

    Input<Buffer<float, 2>> input{"input"};  // intensities in [0, 1]
    Input<float> r_sigma{"r_sigma", 0.1f, 0.01f, 1.0f};  // range cell size (intensity units)
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        const int s = s_sigma;
        Expr inv_r = 1.0f / r_sigma;

        clamped = BoundaryConditions::repeat_edge(input);

        // Splat: grid cell (x, y) gathers the s x s pixels centred on (x*s, y*s); each pixel lands
        // in the intensity bin nearest to value/r_sigma. Channel 0 sums values, channel 1 counts.
        r = RDom(0, s, 0, s, "r");
        Expr val = clamp(clamped(x * s + r.x - s / 2, y * s + r.y - s / 2), 0.0f, 1.0f);
        Expr zi = cast<int>(val * inv_r + 0.5f);
        histogram(x, y, z, c) = 0.0f;
        histogram(x, y, zi, c) += select(c == 0, val, 1.0f);

        // Blur the grid with a binomial 5-tap kernel along each axis.
        blurz(x, y, z, c) = histogram(x, y, z - 2, c) + 4 * histogram(x, y, z - 1, c) + 6 * histogram(x, y, z, c) +
                            4 * histogram(x, y, z + 1, c) + histogram(x, y, z + 2, c);
        blurx(x, y, z, c) = blurz(x - 2, y, z, c) + 4 * blurz(x - 1, y, z, c) + 6 * blurz(x, y, z, c) +
                            4 * blurz(x + 1, y, z, c) + blurz(x + 2, y, z, c);
        blury(x, y, z, c) = blurx(x, y - 2, z, c) + 4 * blurx(x, y - 1, z, c) + 6 * blurx(x, y, z, c) +
                            4 * blurx(x, y + 1, z, c) + blurx(x, y + 2, z, c);

        // Slice: trilinear lookup at (x/s, y/s, value/r_sigma), then value sum / weight sum.
        Expr v = clamp(input(x, y), 0.0f, 1.0f);
        Expr zv = v * inv_r;
        Expr zc = cast<int>(zv);
        Expr zf = zv - zc;
        Expr xc = x / s, yc = y / s;
        Expr xf = cast<float>(x % s) / s, yf = cast<float>(y % s) / s;
        interpolated(x, y, c) =
            lerp(lerp(lerp(blury(xc, yc, zc, c), blury(xc + 1, yc, zc, c), xf),
                      lerp(blury(xc, yc + 1, zc, c), blury(xc + 1, yc + 1, zc, c), xf), yf),
                 lerp(lerp(blury(xc, yc, zc + 1, c), blury(xc + 1, yc, zc + 1, c), xf),
                      lerp(blury(xc, yc + 1, zc + 1, c), blury(xc + 1, yc + 1, zc + 1, c), xf), yf),
                 zf);
        output(x, y) = interpolated(x, y, 0) / interpolated(x, y, 1);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 2560}});
        r_sigma.set_estimate(0.1f);
        output.set_estimates({{0, 1536}, {0, 2560}});
        if (schedule_kind.value() == "manual") {
            // Kernel 1 and 2: the grid. One thread per grid column (x, y): it zeroes its column of
            // bins, then scatters its s x s pixels into it. The z/c dimensions stay inside the
            // thread, so the scatter needs no atomics.
            histogram.compute_root()
                .bound(c, 0, 2)
                .reorder(c, z, x, y)
                .unroll(c)
                .gpu_tile(x, y, xo, yo, xi, yi, 16, 8, TailStrategy::GuardWithIf);
            histogram.update()
                .reorder(c, r.x, r.y, x, y)
                .unroll(c)
                .gpu_tile(x, y, xo, yo, xi, yi, 16, 8, TailStrategy::GuardWithIf);

            // Kernel 3: the three blurs. One block per 32x8 tile of one z slice of the grid;
            // blurz (tile + 2-cell x/y halo) and blurx (+ y halo) are staged in shared memory,
            // computed by the same 32x8 threads in (at most 2x2) passes.
            blury.compute_root()
                .bound(c, 0, 2)
                .reorder(c, x, y, z)
                .unroll(c)
                .tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf)
                .gpu_blocks(xo, yo, z)
                .gpu_threads(xi, yi);
            blurx.compute_at(blury, xo)
                .reorder(c, x, y, z)
                .unroll(c)
                .tile(x, y, sxo, syo, sxi, syi, 32, 8, TailStrategy::GuardWithIf)
                .gpu_threads(sxi, syi);
            blurz.compute_at(blury, xo)
                .reorder(c, x, y, z)
                .unroll(c)
                .tile(x, y, sxo, syo, sxi, syi, 32, 8, TailStrategy::GuardWithIf)
                .gpu_threads(sxi, syi);

            // Kernel 4: slicing, one thread per output pixel, 32-wide rows for coalescing; the
            // grid lookups (data-dependent z) go through the L1/texture path.
            output.gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
        }
    }

private:
    Var x{"x"}, y{"y"}, z{"z"}, c{"c"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    Var sxo{"sxo"}, syo{"syo"}, sxi{"sxi"}, syi{"syi"};
    RDom r;
    Func clamped{"clamped"}, histogram{"histogram"}, blurz{"blurz"}, blurx{"blurx"}, blury{"blury"},
        interpolated{"interpolated"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BilateralGrid, bilateral_grid)
