// RGB -> YUV with a gamma lookup table computed in the pipeline, on interleaved 8-bit input.
#include "Halide.h"
using namespace Halide;
namespace {
class GammaLutYuv : public Generator<GammaLutYuv> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint8_t, 3>> input{"input"};
    Input<float> gamma{"gamma"};
    Output<Buffer<uint8_t, 3>> output{"output"};
    Var x{"x"}, y{"y"}, c{"c"}, i{"i"};
    void generate() {
        Func lut{"lut"};
        lut(i) = pow(cast<float>(i) / 255.0f, gamma);
        Func lin{"lin"};
        lin(x, y, c) = lut(cast<int>(input(x, y, c)));
        Expr r = lin(x, y, 0), g = lin(x, y, 1), b = lin(x, y, 2);
        Expr Y = 0.299f * r + 0.587f * g + 0.114f * b;
        Expr U = -0.169f * r - 0.331f * g + 0.5f * b + 0.5f;
        Expr V = 0.5f * r - 0.419f * g - 0.081f * b + 0.5f;
        output(x, y, c) = cast<uint8_t>(clamp(select(c == 0, Y, c == 1, U, V) * 255.0f, 0.0f, 255.0f));
    }
    void schedule() {
        input.dim(0).set_stride(3).dim(2).set_stride(1).set_bounds(0, 3);
        output.dim(0).set_stride(3).dim(2).set_stride(1).set_bounds(0, 3);
        input.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        gamma.set_estimate(2.2f);
        output.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(GammaLutYuv, gamma_lut_yuv)
