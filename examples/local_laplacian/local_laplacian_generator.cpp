// Local Laplacian filter (detail/tone manipulation) of a 16-bit RGB image: the luminance is
// remapped at `levels` intensity levels, each remapped image gets a Laplacian pyramid, and the
// output pyramid picks (interpolating between levels) the coefficients that match the input's
// Gaussian pyramid at each pixel; the collapsed luminance then rescales the RGB input.
#include "Halide.h"

namespace {

using namespace Halide;

class LocalLaplacian : public Generator<LocalLaplacian> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"
    GeneratorParam<int> pyramid_levels{"pyramid_levels", 8, 2, 12};  // J: number of pyramid levels

    Input<Buffer<uint16_t, 3>> input{"input"};            // x, y, c (RGB)
    Input<int> levels{"levels", 8, 2, 32};                 // intensity levels the remapping is sampled at
    Input<float> alpha{"alpha", 1.0f, 0.0f, 4.0f};         // detail boost
    Input<float> beta{"beta", 1.0f, 0.0f, 4.0f};           // tone (large-scale contrast) scale
    Output<Buffer<uint16_t, 3>> output{"output"};

    void generate() {
        const int J = pyramid_levels;
        // Every pyramid level j is ceil(W / 2^j) x ceil(H / 2^j); all resampling clamps to it.
        std::vector<Expr> w(J), h(J);
        for (int j = 0; j < J; j++) {
            w[j] = ((input.width() - 1) >> j) + 1;
            h[j] = ((input.height() - 1) >> j) + 1;
        }

        Func clamped = BoundaryConditions::repeat_edge(input);
        floating(x, y, c) = cast<float>(clamped(x, y, c)) * (1.0f / 65535.0f);
        gray(x, y) = 0.299f * floating(x, y, 0) + 0.587f * floating(x, y, 1) + 0.114f * floating(x, y, 2);

        // The remapping curve, sampled at 1/256 steps: boosts small differences (detail).
        Expr fx = cast<float>(x) * (1.0f / 256.0f);
        remap(x) = alpha * fx * exp(-fx * fx * 0.5f);

        // Level 0 of the processed pyramids: gray remapped around intensity level k.
        std::vector<Func> g_pyr(J), l_pyr(J), in_pyr(J), out_l_pyr(J), out_g_pyr(J);
        Expr level = cast<float>(k) * (1.0f / cast<float>(levels - 1));
        Expr idx = clamp(cast<int>(gray(x, y) * cast<float>(levels - 1) * 256.0f), 0, (levels - 1) * 256);
        g_pyr[0] = Func("g_pyr_0");
        g_pyr[0](x, y, k) = beta * (gray(x, y) - level) + level + remap(idx - 256 * k);
        in_pyr[0] = gray;

        // Gaussian pyramids of the processed images and of the input luminance.
        for (int j = 1; j < J; j++) {
            g_pyr[j] = downsample(g_pyr[j - 1], w[j - 1], h[j - 1], "g_pyr_" + std::to_string(j), {0, j});
            in_pyr[j] = downsample(in_pyr[j - 1], w[j - 1], h[j - 1], "in_pyr_" + std::to_string(j), {1, j});
        }
        // Laplacian pyramids of the processed images.
        l_pyr[J - 1] = g_pyr[J - 1];
        for (int j = 0; j < J - 1; j++) {
            l_pyr[j] = Func("l_pyr_" + std::to_string(j));
            Func up = upsample(g_pyr[j + 1], w[j + 1], h[j + 1], "up_g_pyr_" + std::to_string(j + 1));
            l_pyr[j](x, y, k) = g_pyr[j](x, y, k) - up(x, y, k);
        }
        // Output Laplacian pyramid: at each pixel, interpolate between the two processed pyramids
        // whose intensity level brackets the input's Gaussian pyramid value.
        for (int j = 0; j < J; j++) {
            out_l_pyr[j] = Func("out_l_pyr_" + std::to_string(j));
            Expr lvl = in_pyr[j](x, y) * cast<float>(levels - 1);
            Expr li = clamp(cast<int>(lvl), 0, levels - 2);
            Expr lf = lvl - cast<float>(li);
            out_l_pyr[j](x, y) = (1.0f - lf) * l_pyr[j](x, y, li) + lf * l_pyr[j](x, y, li + 1);
        }
        // Collapse it.
        out_g_pyr[J - 1] = Func("out_g_pyr_" + std::to_string(J - 1));
        out_g_pyr[J - 1](x, y) = out_l_pyr[J - 1](x, y);
        for (int j = J - 2; j >= 0; j--) {
            out_g_pyr[j] = Func("out_g_pyr_" + std::to_string(j));
            Func up = upsample(out_g_pyr[j + 1], w[j + 1], h[j + 1], "up_out_g_pyr_" + std::to_string(j + 1));
            out_g_pyr[j](x, y) = up(x, y) + out_l_pyr[j](x, y);
        }

        // Reintroduce color: scale RGB by the ratio of new to old luminance.
        const float eps = 0.01f;
        Expr color = out_g_pyr[0](x, y) * (floating(x, y, c) + eps) / (gray(x, y) + eps);
        output(x, y, c) = cast<uint16_t>(clamp(color * 65535.0f + 0.5f, 0.0f, 65535.0f));

        g_pyramid = g_pyr;
        in_pyramid = in_pyr;
        out_g_pyramid = out_g_pyr;
    }

    void schedule() {
        const int J = pyramid_levels;
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        levels.set_estimate(8);
        alpha.set_estimate(1.0f);
        beta.set_estimate(1.0f);
        if (schedule_kind.value() != "manual") return;

        // Tails: intermediate Funcs round up to whole tiles (their consumers clamp coordinates,
        // extra values are harmless) and outputs shift the last tile inwards, so every tile and
        // shared-memory stage has a constant size and no per-thread guards.
        // Remap LUT and luminance: small elementwise kernels of their own.
        remap.compute_root().gpu_tile(x, xo, xi, 256, TailStrategy::RoundUp);
        gray.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::RoundUp);
        // g_pyr_0 (a LUT lookup per pixel and level) stays inlined into its consumers: the level-1
        // downsample and l_pyr_0 recompute it rather than writing W x H x levels floats.
        for (int j = 1; j < J; j++) {
            // Coarse levels are tiny: smaller tiles keep more than a handful of blocks busy.
            const int tw = j < 4 ? 32 : 8, th = 8;
            // One kernel per level of each Gaussian pyramid; the intensity level k is the z block
            // index. The horizontal pass of the separable downsample is staged in shared memory.
            g_pyramid[j].compute_root()
                .gpu_tile(x, y, xo, yo, xi, yi, tw, th, TailStrategy::RoundUp)
                .gpu_blocks(k);
            down_x[{0, j}].compute_at(g_pyramid[j], xo).gpu_threads(x, y);
            in_pyramid[j].compute_root().gpu_tile(x, y, xo, yo, xi, yi, tw, th, TailStrategy::RoundUp);
            down_x[{1, j}].compute_at(in_pyramid[j], xo).gpu_threads(x, y);
            // Collapsing: one kernel per level; the Laplacian coefficients (two processed levels,
            // each a difference against an upsampled coarser level) are computed inline.
            out_g_pyramid[j].compute_root().gpu_tile(x, y, xo, yo, xi, yi, tw, th, TailStrategy::RoundUp);
        }
        // Finest level fused into the output: each thread computes its pixel's collapsed value once
        // (in a register) and the three color channels from it.
        output.bound(c, 0, 3)
            .reorder(c, x, y)
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 8)
            .unroll(c);
        out_g_pyramid[0].compute_at(output, xi);
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, k{"k"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    Func floating{"floating"}, gray{"gray"}, remap{"remap"};
    std::vector<Func> g_pyramid, in_pyramid, out_g_pyramid;
    std::map<std::pair<int, int>, Func> down_x;  // horizontal pass of each downsample: {pyramid, level}

    // Dimensions of f beyond (x, y): the intensity level k for the processed pyramids.
    std::vector<Expr> args(const Func &f, Expr px, Expr py) const {
        std::vector<Expr> a{std::move(px), std::move(py)};
        if (f.dimensions() == 3) a.push_back(k);
        return a;
    }
    std::vector<Var> vars(const Func &f) const {
        std::vector<Var> v{x, y};
        if (f.dimensions() == 3) v.push_back(k);
        return v;
    }

    // 2x decimation with the [1 3 3 1]/8 kernel, separable; f is fw x fh (coordinates clamped).
    Func downsample(const Func &f, Expr fw, Expr fh, const std::string &name, std::pair<int, int> key) {
        Func dx{name + "_dx"}, d{name};
        auto cx = [&](Expr e) { return clamp(e, 0, fw - 1); };
        auto cy = [&](Expr e) { return clamp(e, 0, fh - 1); };
        // The row clamp is applied inside dx, so dx's footprint per output tile is a fixed-size
        // window (constant-size shared memory when it is staged per tile).
        Expr row = cy(y);
        dx(vars(f)) = (f(args(f, cx(2 * x - 1), row)) + 3.0f * (f(args(f, cx(2 * x), row)) + f(args(f, cx(2 * x + 1), row))) +
                       f(args(f, cx(2 * x + 2), row))) *
                      (1.0f / 8.0f);
        d(vars(f)) = (dx(args(f, x, 2 * y - 1)) + 3.0f * (dx(args(f, x, 2 * y)) + dx(args(f, x, 2 * y + 1))) +
                      dx(args(f, x, 2 * y + 2))) *
                     (1.0f / 8.0f);
        down_x[key] = dx;
        return d;
    }

    // 2x linear upsampling (weights 3/4 nearest, 1/4 next-nearest, per axis); f is fw x fh.
    Func upsample(const Func &f, Expr fw, Expr fh, const std::string &name) {
        Func u{name};
        Expr x0 = clamp(x / 2, 0, fw - 1), x1 = clamp(x / 2 - 1 + 2 * (x % 2), 0, fw - 1);
        Expr y0 = clamp(y / 2, 0, fh - 1), y1 = clamp(y / 2 - 1 + 2 * (y % 2), 0, fh - 1);
        Expr row0 = 0.75f * f(args(f, x0, y0)) + 0.25f * f(args(f, x1, y0));
        Expr row1 = 0.75f * f(args(f, x0, y1)) + 0.25f * f(args(f, x1, y1));
        u(vars(f)) = 0.75f * row0 + 0.25f * row1;
        return u;
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(LocalLaplacian, local_laplacian)
