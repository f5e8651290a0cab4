// A disk-shaped blur: an RDom over a square restricted by where() to a circle, on 16-bit input.
#include "Halide.h"
using namespace Halide;
namespace {
class DiskBlur : public Generator<DiskBlur> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};
    Input<Buffer<uint16_t, 2>> input{"input"};
    Output<Buffer<uint16_t, 2>> output{"output"};
    Var x{"x"}, y{"y"};
    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        RDom r(-4, 9, -4, 9, "r");
        r.where(r.x * r.x + r.y * r.y <= 16);
        Func acc{"acc"};
        acc(x, y) = 0;
        acc(x, y) += cast<int>(clamped(x + r.x, y + r.y));
        output(x, y) = cast<uint16_t>(acc(x, y) / 49);
    }
    void schedule() {
        input.set_estimates({{0, 1920}, {0, 1080}});
        output.set_estimates({{0, 1920}, {0, 1080}});
        // HLSCHED_SCHEDULE
    }
};
}  // namespace
HALIDE_REGISTER_GENERATOR(DiskBlur, disk_blur_where)
