// Multi-scale interpolation (pyramid hole filling / scattered-data interpolation) of an RGBA
// float image: the alpha-premultiplied image is reduced through a 10-level Gaussian pyramid, then
// rebuilt coarse-to-fine, each level's samples composited over the upsampled coarser level;
// dividing by the accumulated alpha gives an RGB image where empty (alpha 0) pixels are filled
// smoothly from their surroundings.
#include "Halide.h"

namespace {

using namespace Halide;

class Interpolate : public Generator<Interpolate> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"
    GeneratorParam<int> pyramid_levels{"pyramid_levels", 10, 2, 16};

    Input<Buffer<float, 3>> input{"input"};    // x, y, c: RGBA, alpha in [0, 1]
    Output<Buffer<float, 3>> output{"output"};  // x, y, c: RGB

    void generate() {
        const int L = pyramid_levels;
        std::vector<Expr> w(L), h(L);  // level l is ceil(W / 2^l) x ceil(H / 2^l)
        for (int l = 0; l < L; l++) {
            w[l] = ((input.width() - 1) >> l) + 1;
            h[l] = ((input.height() - 1) >> l) + 1;
        }

        // Locals of generate(): the pyramid Funcs are created here and by the helpers below.
        Func clamped = BoundaryConditions::repeat_edge(input);
        std::vector<Func> down(L), up(L);
        down[0] = Func("premultiplied");
        down[0](x, y, c) = select(c < 3, clamped(x, y, c) * clamped(x, y, 3), clamped(x, y, 3));
        for (int l = 1; l < L; l++) down[l] = reduce(down[l - 1], w[l - 1], h[l - 1], l);

        up[L - 1] = down[L - 1];
        for (int l = L - 2; l >= 0; l--) {
            Func coarse = expand(up[l + 1], w[l + 1], h[l + 1], l);
            up[l] = Func("filled_" + std::to_string(l));
            // "over" compositing of this level onto the interpolated coarser one.
            up[l](x, y, c) = down[l](x, y, c) + (1.0f - down[l](x, y, 3)) * coarse(x, y, c);
        }
        output(x, y, c) = up[0](x, y, c) / up[0](x, y, 3);

        downsampled = down;
        upsampled = up;
    }

    void schedule() {
        const int L = pyramid_levels;
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 4}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        if (schedule_kind.value() != "manual") return;

        // Tails: intermediate Funcs round up to whole tiles (their consumers clamp coordinates,
        // extra values are harmless) and outputs shift the last tile inwards, so every tile and
        // shared-memory stage has a constant size and no per-thread guards.
        // Every pyramid level is its own kernel (the next level needs all of it). Each thread does
        // all four channels of a pixel (unrolled); the horizontal pass of each reduction is staged
        // in shared memory per 32x8 tile. Coarse levels (width < 100 at the estimates) use 8x8
        // tiles so that they still spread over several SMs.
        for (int l = 1; l < L; l++) {
            const int tw = l < 4 ? 32 : 8;
            downsampled[l].compute_root()
                .bound(c, 0, 4)
                .reorder(c, x, y)
                .gpu_tile(x, y, xo, yo, xi, yi, tw, 8, TailStrategy::RoundUp)
                .unroll(c);
            reduce_x[l].compute_at(downsampled[l], xo).bound(c, 0, 4).reorder(c, x, y).gpu_threads(x, y).unroll(c);
            if (l < L - 1) {  // upsampled[L - 1] is downsampled[L - 1]
                upsampled[l].compute_root()
                    .bound(c, 0, 4)
                    .reorder(c, x, y)
                    .gpu_tile(x, y, xo, yo, xi, yi, tw, 8, TailStrategy::RoundUp)
                    .unroll(c);
            }
        }
        // Finest level fused into the normalizing output: one register-resident RGBA value per
        // thread, read by the three unrolled output channels.
        output.bound(c, 0, 3).reorder(c, x, y).gpu_tile(x, y, xo, yo, xi, yi, 32, 8).unroll(c);
        upsampled[0].compute_at(output, xi).bound(c, 0, 4).unroll(c);
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    std::vector<Func> downsampled, upsampled;
    std::map<int, Func> reduce_x;

    // Level l from level l-1 (fw x fh): separable [1 2 1]/4 filter and 2x decimation.
    Func reduce(const Func &f, Expr fw, Expr fh, int l) {
        Func rx{"reduce_x_" + std::to_string(l)}, r{"downsampled_" + std::to_string(l)};
        auto cx = [&](Expr e) { return clamp(e, 0, fw - 1); };
        auto cy = [&](Expr e) { return clamp(e, 0, fh - 1); };
        // Rows are clamped inside rx, so rx's footprint per output tile has a fixed size.
        Expr row = cy(y);
        rx(x, y, c) = (f(cx(2 * x - 1), row, c) + 2.0f * f(cx(2 * x), row, c) + f(cx(2 * x + 1), row, c)) * 0.25f;
        r(x, y, c) = (rx(x, 2 * y - 1, c) + 2.0f * rx(x, 2 * y, c) + rx(x, 2 * y + 1, c)) * 0.25f;
        reduce_x[l] = rx;
        return r;
    }

    // Level l from level l+1 (fw x fh): 2x linear interpolation (3/4 nearest, 1/4 next, per axis).
    Func expand(const Func &f, Expr fw, Expr fh, int l) {
        Func e{"expand_" + std::to_string(l)};
        Expr x0 = clamp(x / 2, 0, fw - 1), x1 = clamp(x / 2 - 1 + 2 * (x % 2), 0, fw - 1);
        Expr y0 = clamp(y / 2, 0, fh - 1), y1 = clamp(y / 2 - 1 + 2 * (y % 2), 0, fh - 1);
        Expr row0 = 0.75f * f(x0, y0, c) + 0.25f * f(x1, y0, c);
        Expr row1 = 0.75f * f(x0, y1, c) + 0.25f * f(x1, y1, c);
        e(x, y, c) = 0.75f * row0 + 0.25f * row1;
        return e;
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Interpolate, interpolate)
