// Experiment (issue 12): which parts of unsharp's manual schedule matter against the search's:
// the block's tile and rows per thread, the per-pixel ratio in registers (once per pixel for the
// three channels) or inlined, and how the shared-memory stages are spread over the threads.
// The algorithm is examples/unsharp's.
#include <cmath>
#include <vector>

#include "Halide.h"
namespace {
using namespace Halide;

constexpr int kRadius = 4;
constexpr float kSigma = 1.5f;

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

Func blur_1d(Func in, const std::vector<float> &w, int dx, int dy, const std::string &name) {
    Var x("x"), y("y");
    Func out(name);
    Expr sum = 0.0f;
    for (int i = -kRadius; i <= kRadius; i++) sum += w[i + kRadius] * in(x + i * dx, y + i * dy);
    out(x, y) = sum;
    return out;
}

class UnsharpTiles : public Generator<UnsharpTiles> {
public:
    GeneratorParam<int> tx{"tx", 64};             // threads along x
    GeneratorParam<int> ty{"ty", 4};              // threads along y
    GeneratorParam<int> sy{"sy", 8};              // output rows per thread
    GeneratorParam<bool> ratio_regs{"ratio_regs", false};  // ratio at the thread, in registers
    GeneratorParam<bool> stage_rows{"stage_rows", false};  // stages: rows per thread (RoundUp), not 2-D tiles
    // Which part of stage_rows matters (with stage_rows false): "tiles" (the search's form),
    // "rows_nounroll" (rows per thread, RoundUp, not unrolled), "rows_guard" (rows per thread,
    // GuardWithIf, unrolled), "tiles_unroll" (the search's form, its passes unrolled),
    // "tiles_roundup" (the search's form with RoundUp splits).
    GeneratorParam<std::string> stage_form{"stage_form", "tiles"};
    GeneratorParam<bool> c_inner{"c_inner", true};          // channels innermost in the thread

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
        ratio(x, y) = select(gray(x, y) > 1e-6f, sharpen(x, y) / gray(x, y), 1.0f);
        output(x, y, c) = clamp(ratio(x, y) * input(x, y, c), 0.0f, 1.0f);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        amount.set_estimate(1.0f);
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        const int bx = tx, by = int(ty) * int(sy);
        output.bound(c, 0, 3)
            .gpu_tile(x, y, xo, yo, xi, yi, bx, by, TailStrategy::GuardWithIf)
            .split(yi, yi, yii, sy, TailStrategy::GuardWithIf);
        if (c_inner) output.reorder(c, yii, xi, yi, xo, yo); else output.reorder(yii, c, xi, yi, xo, yo);
        output.unroll(yii).unroll(c);
        if (ratio_regs) ratio.compute_at(output, xi).bound_extent(y, sy).unroll(x).unroll(y);
        // The stages' footprints: (bx + 2 radius) x (by + 2 radius) for gray, bx x (by + 2 radius) for blur_x.
        if (stage_rows) {
            const int rows = (by + 2 * kRadius + int(ty) - 1) / int(ty);
            blur_x.compute_at(output, xo).split(y, y, yi, rows, TailStrategy::RoundUp).unroll(yi).gpu_threads(x, y);
            gray.compute_at(output, xo).split(y, y, yi, rows, TailStrategy::RoundUp).unroll(yi).gpu_threads(x, y);
        } else if (stage_form.value() == "rows_nounroll" || stage_form.value() == "rows_guard") {
            const int rows = (by + 2 * kRadius + int(ty) - 1) / int(ty);
            const TailStrategy tail = stage_form.value() == "rows_guard" ? TailStrategy::GuardWithIf : TailStrategy::RoundUp;
            for (Func f : {blur_x, gray}) {
                f.compute_at(output, xo).split(y, y, yi, rows, tail).gpu_threads(x, y);
                if (stage_form.value() == "rows_guard") f.unroll(yi);
            }
        } else {
            const TailStrategy tail = stage_form.value() == "tiles_roundup" ? TailStrategy::RoundUp : TailStrategy::GuardWithIf;
            blur_x.compute_at(output, xo)
                .split(x, xo, xi, bx, tail)
                .split(y, yo, yi, ty, tail)
                .reorder(xi, yi, xo, yo)
                .gpu_threads(xi, yi);
            gray.compute_at(output, xo)
                .split(x, xo, xi, bx + 2 * kRadius, tail)
                .split(y, yo, yi, ty, tail)
                .reorder(xi, yi, xo, yo)
                .gpu_threads(xi, yi);
            if (stage_form.value() == "tiles_unroll") {
                blur_x.unroll(yo);
                gray.unroll(yo);
            }
        }
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, yii{"yii"};
    Func gray{"gray"}, ratio{"ratio"};
    Func blur_x;
};
}  // namespace
HALIDE_REGISTER_GENERATOR(UnsharpTiles, unsharp_tiles)
