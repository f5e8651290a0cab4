// 3x3 box blur of a 16-bit single-channel image: the small demo pipeline.
#include "Halide.h"

namespace {

using namespace Halide;

class Blur : public Generator<Blur> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"

    Input<Buffer<uint16_t, 2>> input{"input"};
    Output<Buffer<uint16_t, 2>> output{"output"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
        output(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    }

    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        output.set_estimates({{0, 1920}, {0, 1080}});
        if (schedule_kind.value() == "manual") {
            // 32x8 threads per block, 2 rows per thread; blur_x staged through shared memory.
            output.gpu_tile(x, y, xo, yo, xi, yi, 32, 16, TailStrategy::GuardWithIf)
                .split(yi, yi, yii, 2, TailStrategy::GuardWithIf)
                .unroll(yii);
            blur_x.compute_at(output, xo).gpu_threads(x, y);
        }
    }

private:
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, yii{"yii"};
    Func blur_x{"blur_x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Blur, blur)
