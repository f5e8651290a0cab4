// 2D convolution with a kernel given at runtime (its size from the buffer), float RGB.
#include "Halide.h"
using namespace Halide;
namespace {
class RuntimeKernelConv : public Generator<RuntimeKernelConv> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 3>> input{"input"};
    Input<Buffer<float, 2>> kernel{"kernel"};
    Output<Buffer<float, 3>> output{"output"};
    Var x{"x"}, y{"y"}, c{"c"};
    void generate() {
        Func clamped = BoundaryConditions::mirror_image(input);
        RDom r(kernel);
        Expr cx = kernel.dim(0).extent() / 2, cy = kernel.dim(1).extent() / 2;
        Func conv{"conv"};
        conv(x, y, c) = 0.0f;
        conv(x, y, c) += kernel(r.x, r.y) * clamped(x + r.x - cx, y + r.y - cy, c);
        output(x, y, c) = conv(x, y, c);
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        kernel.set_estimates({{0, 5}, {0, 5}});
        output.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(RuntimeKernelConv, runtime_kernel_conv)
