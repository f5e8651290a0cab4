// Harris corner response of an RGB float image: luma, 3x3 Sobel gradients, structure tensor
// (products of gradients summed over a 3x3 window), response det - kappa * trace^2.
#include "Halide.h"

namespace {

using namespace Halide;

// 3x3 box sum of f: one entry of the structure tensor.
Func box3(Func f, const std::string &name) {
    Var x("x"), y("y");
    Func out(name);
    Expr sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) sum += f(x + dx, y + dy);
    out(x, y) = sum;
    return out;
}

// Product of two images, pointwise.
Func product(Func a, Func b, const std::string &name) {
    Var x("x"), y("y");
    Func out(name);
    out(x, y) = a(x, y) * b(x, y);
    return out;
}

class Harris : public Generator<Harris> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"

    Input<Buffer<float, 3>> input{"input"};
    Input<float> kappa{"kappa", 0.04f, 0.0f, 0.25f};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        gray(x, y) = 0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);

        // Sobel derivatives, scaled by 1/12 (as the classic Halide benchmark does; the scale only
        // multiplies the response by a constant).
        Iy(x, y) = (gray(x - 1, y + 1) - gray(x - 1, y - 1)) / 12.0f +
                   (gray(x, y + 1) - gray(x, y - 1)) * (2.0f / 12.0f) +
                   (gray(x + 1, y + 1) - gray(x + 1, y - 1)) / 12.0f;
        Ix(x, y) = (gray(x + 1, y - 1) - gray(x - 1, y - 1)) / 12.0f +
                   (gray(x + 1, y) - gray(x - 1, y)) * (2.0f / 12.0f) +
                   (gray(x + 1, y + 1) - gray(x - 1, y + 1)) / 12.0f;

        Func Ixx = product(Ix, Ix, "Ixx");
        Func Iyy = product(Iy, Iy, "Iyy");
        Func Ixy = product(Ix, Iy, "Ixy");
        Func Sxx = box3(Ixx, "Sxx");
        Func Syy = box3(Iyy, "Syy");
        Func Sxy = box3(Ixy, "Sxy");

        Func det{"det"}, trace{"trace"};
        det(x, y) = Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y);
        trace(x, y) = Sxx(x, y) + Syy(x, y);
        output(x, y) = det(x, y) - kappa * trace(x, y) * trace(x, y);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        kappa.set_estimate(0.04f);
        output.set_estimates({{0, 1536}, {0, 2560}});
        if (schedule_kind.value() == "manual") {
            // One kernel. 32x32 output tiles per block, 32x8 threads, 4 rows per thread
            // (unrolled: neighbouring rows share most of their 3x3 window loads). The gradient
            // products, box sums and response are inlined into the output; the two gradients
            // (34x34) and the luma (36x36) are staged in shared memory (~14.5 KB per block),
            // each covered by 9 thread rows with 4 rows per thread.
            output.gpu_tile(x, y, xo, yo, xi, yi, 32, 32, TailStrategy::GuardWithIf)
                .split(yi, yi, yii, 4, TailStrategy::GuardWithIf)
                .reorder(yii, xi, yi, xo, yo)
                .unroll(yii);
            for (Func f : {Ix, Iy, gray}) {
                f.compute_at(output, xo)
                    .split(y, y, yi, 4, TailStrategy::RoundUp)
                    .unroll(yi)
                    .gpu_threads(x, y);
            }
        }
    }

private:
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, yii{"yii"};
    Func gray{"gray"}, Ix{"Ix"}, Iy{"Iy"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Harris, harris)
