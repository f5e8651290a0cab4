// Experiment (issue 12): interpolate's output kernel, the search's schedule (pasted from
// `hlsched schedule examples/interpolate/interpolate_generator.cpp`, session twenty-two) with
// output's channels in the thread and filled_0 computed once per pixel, as the manual schedule
// does. The algorithm is examples/interpolate's.
// Multi-scale interpolation (pyramid hole filling / scattered-data interpolation) of an RGBA
// float image: the alpha-premultiplied image is reduced through a 10-level Gaussian pyramid, then
// rebuilt coarse-to-fine, each level's samples composited over the upsampled coarser level;
// dividing by the accumulated alpha gives an RGB image where empty (alpha 0) pixels are filled
// smoothly from their surroundings.
#include "Halide.h"

namespace {

using namespace Halide;

class InterpolateOut : public Generator<InterpolateOut> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"
    GeneratorParam<int> pyramid_levels{"pyramid_levels", 10, 2, 16};
    GeneratorParam<int> out_variant{"out_variant", 0};  // output: 0 the search's, 1 channels in the thread, 2 and filled_0 per pixel

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
        if (schedule_kind.value() != "manual") {
        // Schedule by hlsched (beam search) for host-cuda-cuda_capability_86 on NVIDIA H200 (Hopper, sm_90, 132 SMs, HBM3e).
        // Predicted runtime 0.242 ms.
        using namespace Halide;
        // Every Func of the pipeline by name (some are locals of generate()).
        std::map<std::string, Internal::Function> hlsched_funcs;
        for (const Func &out : get_pipeline().outputs()) {
            hlsched_funcs.emplace(out.name(), out.function());
            for (const auto &called : Internal::find_transitive_calls(out.function())) hlsched_funcs.insert(called);
        }
        Var c("c"), ci("ci"), co("co"), x("x"), xi("xi"), xii("xii"), xo("xo"), y("y"), yi("yi"), yii("yii"), yo("yo"), yr("yr"), yt("yt");

        Func output(hlsched_funcs.at("output"));
        if (out_variant == 0) {  // the search's (session twenty-two)
            output.compute_root()
                .gpu_tile(x, y, xo, yo, xi, yi, 256, 8, TailStrategy::GuardWithIf)
                .split(yi, yi, yii, 4, TailStrategy::GuardWithIf)
                .reorder(yii, xi, yi, xo, yo, c)
                .unroll(yii)
                .gpu_blocks(c)
                .specialize(output.output_buffer().dim(1).min() % 2 == 0);
        } else {  // the three channels inside the thread, unrolled
            output.compute_root()
                .bound(c, 0, 3)
                .gpu_tile(x, y, xo, yo, xi, yi, 256, 8, TailStrategy::GuardWithIf)
                .split(yi, yi, yii, 4, TailStrategy::GuardWithIf)
                .reorder(c, yii, xi, yi, xo, yo)
                .unroll(yii)
                .unroll(c)
                .specialize(output.output_buffer().dim(1).min() % 2 == 0);
            if (out_variant == 2) {  // filled_0's four channels once per pixel, in registers
                Func filled_0(hlsched_funcs.at("filled_0"));
                filled_0.compute_at(output, yii).bound_extent(c, 4).unroll(c);
            }
        }

        // filled_0: inlined into output

        // expand_0: inlined into filled_0

        // filled_1: own kernel, 128x4 threads per block, 3 y per thread; predicted 0.0252 ms (memory-bound)
        Func filled_1(hlsched_funcs.at("filled_1"));
        filled_1.compute_root()
            .gpu_tile(x, y, xo, yo, xi, yi, 128, 12, TailStrategy::GuardWithIf)
            .split(yi, yi, yii, 3, TailStrategy::GuardWithIf)
            .reorder(yii, xi, yi, xo, yo, c)
            .unroll(yii)
            .gpu_blocks(c);

        // expand_1: inlined into filled_1

        // filled_2: own kernel, 64x16 threads per block, 2 x, 2 y per thread; predicted 0.0140 ms (compute-bound)
        Func filled_2(hlsched_funcs.at("filled_2"));
        filled_2.compute_root()
            .align_bounds(x, 2)
            .align_bounds(y, 2)
            .gpu_tile(x, y, xo, yo, xi, yi, 128, 32, TailStrategy::GuardWithIf)
            .split(xi, xi, xii, 2, TailStrategy::GuardWithIf)
            .split(yi, yi, yii, 2, TailStrategy::GuardWithIf)
            .reorder(xii, yii, xi, yi, xo, yo, c)
            .unroll(xii)
            .unroll(yii)
            .gpu_blocks(c);

        // expand_2: inlined into filled_2

        // filled_3: inlined into expand_2

        // expand_3: inlined into filled_3

        // filled_4: own kernel, 128x4 threads per block; predicted 0.0076 ms (launch-bound)
        Func filled_4(hlsched_funcs.at("filled_4"));
        filled_4.compute_root()
            .gpu_tile(x, y, xo, yo, xi, yi, 128, 4, TailStrategy::GuardWithIf)
            .gpu_blocks(c);

        // expand_4: inlined into filled_4

        // filled_5: inlined into expand_4

        // expand_5: inlined into filled_5

        // filled_6: inlined into expand_5

        // expand_6: own kernel, 32x32 threads per block, 2 y per thread; predicted 0.0123 ms (launch-bound)
        Func expand_6(hlsched_funcs.at("expand_6"));
        expand_6.compute_root()
            .align_bounds(y, 2)
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 64, TailStrategy::GuardWithIf)
            .split(yi, yi, yii, 2, TailStrategy::GuardWithIf)
            .reorder(yii, xi, yi, xo, yo, c)
            .unroll(yii)
            .gpu_blocks(c);

        // filled_7: inlined into expand_6

        // expand_7: computed per GPU block of expand_6, in shared memory
        Func expand_7(hlsched_funcs.at("expand_7"));
        expand_7.compute_at(expand_6, xo)
            .split(x, xo, xi, 12, TailStrategy::GuardWithIf)
            .split(y, yo, yi, 20, TailStrategy::GuardWithIf)
            .reorder(xi, yi, xo, yo)
            .gpu_threads(xi, yi);

        // filled_8: inlined into expand_7

        // expand_8: inlined into filled_8

        // downsampled_9: inlined into expand_8

        // reduce_x_9: computed per GPU block of expand_6, in shared memory
        Func reduce_x_9(hlsched_funcs.at("reduce_x_9"));
        reduce_x_9.compute_at(expand_6, xo)
            .split(x, xo, xi, 3, TailStrategy::GuardWithIf)
            .split(y, yo, yi, 11, TailStrategy::GuardWithIf)
            .reorder(xi, yi, xo, yo)
            .gpu_threads(xi, yi);

        // downsampled_8: inlined into reduce_x_9, filled_8

        // reduce_x_8: computed per GPU block of expand_6, in shared memory
        Func reduce_x_8(hlsched_funcs.at("reduce_x_8"));
        reduce_x_8.compute_at(expand_6, xo)
            .split(x, xo, xi, 6, TailStrategy::GuardWithIf)
            .split(y, yo, yi, 21, TailStrategy::GuardWithIf)
            .split(c, co, ci, 4, TailStrategy::GuardWithIf)
            .reorder(ci, xi, yi, xo, yo)
            .gpu_threads(xi, yi)
            .unroll(ci);

        // downsampled_7: inlined into reduce_x_8, filled_7

        // reduce_x_7: computed per GPU block of expand_6, in shared memory
        Func reduce_x_7(hlsched_funcs.at("reduce_x_7"));
        reduce_x_7.compute_at(expand_6, xo)
            .split(x, xo, xi, 12, TailStrategy::GuardWithIf)
            .split(y, yo, yi, 42, TailStrategy::GuardWithIf)
            .split(yi, yt, yr, 2, TailStrategy::GuardWithIf)
            .split(c, co, ci, 4, TailStrategy::GuardWithIf)
            .reorder(ci, yr, xi, yt, xo, yo)
            .gpu_threads(xi, yt)
            .unroll(ci)
            .unroll(yr);

        // downsampled_6: own kernel, 32x16 threads per block; predicted 0.0067 ms (launch-bound)
        Func downsampled_6(hlsched_funcs.at("downsampled_6"));
        downsampled_6.compute_root()
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 16, TailStrategy::GuardWithIf)
            .gpu_blocks(c);

        // reduce_x_6: computed per GPU block of downsampled_6, in shared memory
        Func reduce_x_6(hlsched_funcs.at("reduce_x_6"));
        reduce_x_6.compute_at(downsampled_6, xo)
            .split(x, xo, xi, 24, TailStrategy::GuardWithIf)
            .split(y, yo, yi, 33, TailStrategy::GuardWithIf)
            .split(yi, yt, yr, 3, TailStrategy::GuardWithIf)
            .reorder(yr, xi, yt, xo, yo)
            .gpu_threads(xi, yt)
            .unroll(yr);

        // downsampled_5: own kernel, 64x8 threads per block; predicted 0.0078 ms (launch-bound)
        Func downsampled_5(hlsched_funcs.at("downsampled_5"));
        downsampled_5.compute_root()
            .gpu_tile(x, y, xo, yo, xi, yi, 64, 8, TailStrategy::GuardWithIf)
            .gpu_blocks(c);

        // reduce_x_5: computed per GPU block of downsampled_5, in shared memory
        Func reduce_x_5(hlsched_funcs.at("reduce_x_5"));
        reduce_x_5.compute_at(downsampled_5, xo)
            .split(x, xo, xi, 48, TailStrategy::GuardWithIf)
            .split(y, yo, yi, 18, TailStrategy::GuardWithIf)
            .split(yi, yt, yr, 3, TailStrategy::GuardWithIf)
            .reorder(yr, xi, yt, xo, yo)
            .gpu_threads(xi, yt)
            .unroll(yr);

        // downsampled_4: inlined into reduce_x_5, filled_4

        // reduce_x_4: own kernel, 32x8 threads per block; predicted 0.0061 ms (launch-bound)
        Func reduce_x_4(hlsched_funcs.at("reduce_x_4"));
        reduce_x_4.compute_root()
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf)
            .gpu_blocks(c);

        // downsampled_3: own kernel, 32x16 threads per block; predicted 0.0087 ms (launch-bound)
        Func downsampled_3(hlsched_funcs.at("downsampled_3"));
        downsampled_3.compute_root()
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 16, TailStrategy::GuardWithIf)
            .gpu_blocks(c);

        // reduce_x_3: computed per GPU block of downsampled_3, in shared memory
        Func reduce_x_3(hlsched_funcs.at("reduce_x_3"));
        reduce_x_3.compute_at(downsampled_3, xo)
            .split(x, xo, xi, 32, TailStrategy::GuardWithIf)
            .split(y, yo, yi, 33, TailStrategy::GuardWithIf)
            .split(yi, yt, yr, 3, TailStrategy::GuardWithIf)
            .reorder(yr, xi, yt, xo, yo)
            .gpu_threads(xi, yt)
            .unroll(yr);

        // downsampled_2: inlined into reduce_x_3, filled_2

        // reduce_x_2: own kernel, 32x16 threads per block, 4 y per thread; predicted 0.0162 ms (memory-bound)
        Func reduce_x_2(hlsched_funcs.at("reduce_x_2"));
        reduce_x_2.compute_root()
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 64, TailStrategy::GuardWithIf)
            .split(yi, yi, yii, 4, TailStrategy::GuardWithIf)
            .reorder(yii, xi, yi, xo, yo, c)
            .unroll(yii)
            .gpu_blocks(c);

        // downsampled_1: inlined into reduce_x_2, filled_1

        // reduce_x_1: own kernel, 64x8 threads per block, 8 y per thread; predicted 0.0637 ms (memory-bound)
        Func reduce_x_1(hlsched_funcs.at("reduce_x_1"));
        reduce_x_1.compute_root()
            .gpu_tile(x, y, xo, yo, xi, yi, 64, 64, TailStrategy::GuardWithIf)
            .split(yi, yi, yii, 8, TailStrategy::GuardWithIf)
            .reorder(yii, xi, yi, xo, yo, c)
            .unroll(yii)
            .gpu_blocks(c);

        // premultiplied: inlined into reduce_x_1, filled_0

        // repeat_edge: inlined into premultiplied

        // lambda_0: inlined into repeat_edge

        // input_im: inlined into lambda_0
            return;
        }

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

HALIDE_REGISTER_GENERATOR(InterpolateOut, interpolate_out)
