// float16 and bool Funcs: a half-precision copy and a mask read by a select.
#include "Halide.h"
using namespace Halide;
namespace {
class Float16Bool : public Generator<Float16Bool> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func half_f{"half_f"}, mask{"mask"};
        half_f(x, y) = cast(Float(16), input(x, y) * 0.5f);
        mask(x, y) = input(x, y) > 0.25f;
        output(x, y) = select(mask(x, y), cast<float>(half_f(x, y)) + cast<float>(half_f(x + 1, y)), 0.0f);
    }
    void schedule() {
        input.set_estimates({{0, 2048}, {0, 2048}});
        output.set_estimates({{0, 2047}, {0, 2048}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(Float16Bool, float16_bool)
