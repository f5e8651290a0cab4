// A generator that schedules in schedule(), under `if (auto_schedule)`, with member Vars only that schedule uses: see tests/e2e/test_schedule_in_generate.cpp.
#include "Halide.h"

namespace {

using namespace Halide;

class Shape : public Generator<Shape> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3.0f;
        output(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3.0f;
    }

    void schedule() {
        if (auto_schedule) {
            input.set_estimates({{0, 1024}, {0, 768}});
            output.set_estimates({{0, 1024}, {0, 768}});
        } else {
            output.gpu_tile(x, y, xo, yo, xi, yi, 16, 16);
            blur_x.compute_at(output, xo).gpu_threads(x, y);
        }
    }

private:
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    Func blur_x{"blur_x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Shape, shape)
