// Test pipeline: Funcs made by a helper function (down- and up-sampling), an RGB output,
// a lookup table gather, and a GeneratorParam that changes the structure.
#include "Halide.h"

namespace {

using namespace Halide;

Func downsample(Func f, const std::string &name) {
    Var x("x"), y("y"), c("c");
    Func down(name);
    down(x, y, c) = (f(2 * x - 1, 2 * y, c) + 2.0f * f(2 * x, 2 * y, c) + f(2 * x + 1, 2 * y, c)) / 4.0f;
    return down;
}

Func upsample(Func f, const std::string &name) {
    Var x("x"), y("y"), c("c");
    Func up(name);
    up(x, y, c) = (f(x / 2, y / 2, c) + f((x + 1) / 2, (y + 1) / 2, c)) / 2.0f;
    return up;
}

class PyramidSmall : public Generator<PyramidSmall> {
public:
    GeneratorParam<int> levels{"levels", 3, 1, 6};
    Input<Buffer<uint8_t, 3>> input{"input"};
    Input<Buffer<float, 1>> curve{"curve"};
    Output<Buffer<uint8_t, 3>> output{"output"};

    void generate() {
        Var x("x"), y("y"), c("c");
        Func clamped = BoundaryConditions::mirror_image(input);
        Func as_float("as_float");
        as_float(x, y, c) = clamped(x, y, c) / 255.0f;
        std::vector<Func> down{as_float};
        for (int l = 1; l < levels; l++) down.push_back(downsample(down.back(), "down_" + std::to_string(l)));
        Func up = down.back();
        for (int l = levels - 2; l >= 0; l--) {
            Func merged("merged_" + std::to_string(l));
            Func u = upsample(up, "up_" + std::to_string(l));
            merged(x, y, c) = 0.5f * (u(x, y, c) + down[l](x, y, c));
            up = merged;
        }
        Func mapped("mapped");
        Expr index = clamp(cast<int>(up(x, y, c) * 255.0f), 0, 255);
        mapped(x, y, c) = curve(index);  // a gather through a lookup table
        output(x, y, c) = cast<uint8_t>(clamp(mapped(x, y, c), 0.0f, 1.0f) * 255.0f);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 1024}, {0, 3}});
        curve.set_estimates({{0, 256}});
        output.set_estimates({{0, 1536}, {0, 1024}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(PyramidSmall, pyramid_small)
