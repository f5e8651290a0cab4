// A 64-tap FIR filter over a long 1-D float signal, then a soft clip.
#include "Halide.h"
using namespace Halide;
namespace {
class FirAudio : public Generator<FirAudio> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 1>> signal{"signal"};
    Input<Buffer<float, 1>> taps{"taps"};
    Output<Buffer<float, 1>> output{"output"};
    Var t{"t"};
    void generate() {
        Func padded = BoundaryConditions::constant_exterior(signal, 0.0f);
        RDom k(0, 64, "k");
        Func filtered{"filtered"};
        filtered(t) = sum(taps(k) * padded(t - k));
        output(t) = filtered(t) / (1.0f + abs(filtered(t)));
    }
    void schedule() {
        signal.set_estimates({{0, 1 << 22}});
        taps.set_estimates({{0, 64}});
        output.set_estimates({{0, 1 << 22}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(FirAudio, fir_audio)
