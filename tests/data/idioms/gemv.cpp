// Matrix-vector product and a bias + activation: one long reduction per output. (Found by this
// set: the search re-tiled dot into partial results after fusing vec into it, and the emission
// failed with "map::at".)
#include "Halide.h"
using namespace Halide;
namespace {
class Gemv : public Generator<Gemv> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> matrix{"matrix"};  // (k, n)
    Input<Buffer<float, 1>> vec{"vec"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 1>> output{"output"};
    Var n{"n"};
    void generate() {
        RDom k(0, vec.width(), "k");
        Func dot{"dot"};
        dot(n) = 0.0f;
        dot(n) += matrix(k, n) * vec(k);
        output(n) = max(dot(n) + bias(n), 0.0f);
    }
    void schedule() {
        matrix.set_estimates({{0, 4096}, {0, 4096}});
        vec.set_estimates({{0, 4096}});
        bias.set_estimates({{0, 4096}});
        output.set_estimates({{0, 4096}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(Gemv, gemv)
