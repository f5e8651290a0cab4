// Complex-valued (Tuple) pointwise chain: a spectrum times a filter, magnitude and phase out.
#include "Halide.h"
using namespace Halide;
namespace {
class ComplexMul : public Generator<ComplexMul> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 3>> spectrum{"spectrum"};  // (re/im, x, y)
    Input<Buffer<float, 2>> filter{"filter"};
    Output<Buffer<float, 3>> output{"output"};
    Var x{"x"}, y{"y"}, c{"c"};
    void generate() {
        Func z{"z"}, w{"w"}, prod{"prod"};
        z(x, y) = Tuple(spectrum(0, x, y), spectrum(1, x, y));
        w(x, y) = Tuple(cos(filter(x, y)), sin(filter(x, y)));
        prod(x, y) = Tuple(z(x, y)[0] * w(x, y)[0] - z(x, y)[1] * w(x, y)[1],
                           z(x, y)[0] * w(x, y)[1] + z(x, y)[1] * w(x, y)[0]);
        Expr mag = sqrt(prod(x, y)[0] * prod(x, y)[0] + prod(x, y)[1] * prod(x, y)[1]);
        Expr phase = atan2(prod(x, y)[1], prod(x, y)[0]);
        output(c, x, y) = select(c == 0, mag, phase);
    }
    void schedule() {
        spectrum.set_estimates({{0, 2}, {0, 2048}, {0, 2048}});
        filter.set_estimates({{0, 2048}, {0, 2048}});
        output.set_estimates({{0, 2}, {0, 2048}, {0, 2048}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(ComplexMul, complex_mul_tuple)
