// Test pipeline for phase folding (dag/phase_folding.h): a small Bayer demosaic. `rgb` picks,
// by the parity of x and y, one of four interpolations of the mosaic for each channel, and by
// its channel (its consumer reads it at c = 0, 1, 2) one of three colours. Unrolled over a 2x2
// quad per thread from an even start (align_bounds), each point computes only its own branch.
#include "Halide.h"

namespace {

using namespace Halide;

class BayerSmall : public Generator<BayerSmall> {
public:
    Input<Buffer<float, 2>> input{"input"};  // mosaic: R at (even, even), G at (odd, even) and (even, odd), B at (odd, odd)
    Output<Buffer<float, 3>> out{"out"};

    void generate() {
        Var x("x"), y("y"), c("c");
        Func rgb("rgb");
        // The mosaic is read 2 pixels in from its edge: no boundary condition needed.
        auto m = [&](Expr dx, Expr dy) { return input(x + 2 + dx, y + 2 + dy); };
        Expr odd_x = x % 2 == 1, odd_y = y % 2 == 1;
        Expr cross = (m(-1, 0) + m(1, 0) + m(0, -1) + m(0, 1)) * 0.25f;
        Expr diagonal = (m(-1, -1) + m(1, -1) + m(-1, 1) + m(1, 1)) * 0.25f;
        Expr horizontal = (m(-1, 0) + m(1, 0)) * 0.5f, vertical = (m(0, -1) + m(0, 1)) * 0.5f;
        Expr red = select(odd_y, select(odd_x, diagonal, vertical), select(odd_x, horizontal, m(0, 0)));
        Expr green = select(odd_x == odd_y, cross, m(0, 0));
        Expr blue = select(odd_y, select(odd_x, m(0, 0), horizontal), select(odd_x, vertical, diagonal));
        rgb(x, y, c) = select(c == 0, red, c == 1, green, blue);
        // A colour correction: every output channel mixes the three colours of its pixel.
        out(x, y, c) = rgb(x, y, 0) * (0.8f + 0.1f * c) + rgb(x, y, 1) * 0.15f + rgb(x, y, 2) * (0.05f - 0.01f * c);
    }

    void schedule() {
        input.set_estimates({{0, 1028}, {0, 772}});
        out.set_estimates({{0, 1024}, {0, 768}, {0, 3}});
        // HLSCHED_SCHEDULE
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BayerSmall, bayer_small)
