// A generator whose schedule lives in generate() (or that has none): see tests/e2e/test_schedule_in_generate.cpp.
#include "Halide.h"

namespace {

using namespace Halide;

class Shape : public Generator<Shape> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    GeneratorParam<bool> tiled{"tiled", true};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3.0f;
        output(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3.0f;
        input.set_estimates({{0, 1024}, {0, 768}});
        output.set_estimates({{0, 1024}, {0, 768}});
        if (tiled) {
            Var xo, yo, xi, yi;
            output.gpu_tile(x, y, xo, yo, xi, yi, 16, 16);
            blur_x.compute_at(output, xo).gpu_threads(x, y);
        } else {
            output.parallel(y).vectorize(x, 8);
            blur_x.compute_at(output, y).vectorize(x, 8);
        }
    }

private:
    Var x{"x"}, y{"y"};
    Func blur_x{"blur_x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Shape, shape)
