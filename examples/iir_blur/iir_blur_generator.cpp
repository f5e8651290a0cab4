// First-order recursive (IIR) blur of an RGB float image in both directions. Each direction runs
// a causal scan down the columns, y' = (1 - alpha) y'[-1] + alpha x, then an anti-causal scan back
// up, y'' = (1 - alpha) y''[+1] + alpha y'. The rows are blurred the same way by transposing,
// blurring columns again, and transposing back.
#include <vector>

#include "Halide.h"

namespace {

using namespace Halide;

// Causal + anti-causal first-order filter along y of `in`, rows [0, height).
// The scans' RDoms are appended to `scans` (for the schedule).
Func blur_columns(Func in, Expr height, Expr alpha, const std::string &name, std::vector<RDom> &scans) {
    Var x("x"), y("y"), c("c");
    Func blur(name);
    blur(x, y, c) = in(x, y, c);
    RDom down(1, height - 1, name + "_down");
    blur(x, down, c) = (1.0f - alpha) * blur(x, down - 1, c) + alpha * in(x, down, c);
    RDom up(0, height - 1, name + "_up");
    Expr yr = height - 2 - up;
    blur(x, yr, c) = (1.0f - alpha) * blur(x, yr + 1, c) + alpha * blur(x, yr, c);
    scans.push_back(down);
    scans.push_back(up);
    return blur;
}

// out(x, y, c) = in(y, x, c).
Func transpose(Func in, const std::string &name) {
    Var x("x"), y("y"), c("c");
    Func t(name);
    t(x, y, c) = in(y, x, c);
    return t;
}

class IirBlur : public Generator<IirBlur> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"

    Input<Buffer<float, 3>> input{"input"};
    Input<float> alpha{"alpha", 0.1f, 0.0f, 1.0f};
    Output<Buffer<float, 3>> output{"output"};

    void generate() {
        Expr width = input.width(), height = input.height();
        blur_y = blur_columns(input, height, alpha, "blur_y", scans);
        transposed = transpose(blur_y, "transposed");
        blur_x = blur_columns(transposed, width, alpha, "blur_x", scans);
        output(x, y, c) = blur_x(y, x, c);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        alpha.set_estimate(0.1f);
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        if (schedule_kind.value() == "manual") {
            // Column scans: one thread per (column, channel), 32 threads (one warp) per block so
            // the few thousand columns spread over all SMs; the scan over rows is a serial loop
            // inside the thread, and each step's loads/stores are coalesced across the warp.
            // The scan is unrolled by 8 so that the 8 independent input loads are issued up
            // front and the value carried from row to row stays in a register (the store of
            // one step forwards to the next step's load). The copy that initializes each scan
            // is an ordinary 32x8-tiled kernel.
            int scan = 0;
            for (Func f : {blur_y, blur_x}) {
                f.compute_root()
                    .gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf)
                    .gpu_blocks(c);
                for (int u = 0; u < 2; u++) {
                    RVar r = scans[scan++].x, ro("ro"), ri("ri");
                    f.update(u)
                        .split(r, ro, ri, 8, TailStrategy::GuardWithIf)
                        .unroll(ri)
                        .split(x, xo, xi, 32, TailStrategy::GuardWithIf)
                        .gpu_blocks(xo, c)
                        .gpu_threads(xi);
                }
            }
            // Transposes: 32x32 tiles through shared memory. The source tile is read row by row
            // (coalesced) into shared memory padded to 33 floats per row, so that the transposed
            // reads (stride 33) do not all hit one bank; the result is written coalesced.
            // 32x8 threads, 4 rows per thread.
            for (Func t : {transposed, Func(output)}) {
                Func src = (t.name() == transposed.name()) ? blur_y : blur_x;
                t.compute_root()
                    .gpu_tile(x, y, xo, yo, xi, yi, 32, 32, TailStrategy::GuardWithIf)
                    .split(yi, yi, yii, 4, TailStrategy::GuardWithIf)
                    .reorder(yii, xi, yi, xo, yo, c)
                    .unroll(yii)
                    .gpu_blocks(c);
                src.in(t)
                    .compute_at(t, xo)
                    .align_storage(x, 33)
                    .split(y, y, yi, 4, TailStrategy::RoundUp)
                    .unroll(yi)
                    .gpu_threads(x, y);
            }
        }
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, yii{"yii"};
    Func blur_y, transposed, blur_x;  // defined (and named) by the helpers
    std::vector<RDom> scans;          // down/up scans of blur_y, then of blur_x
};

}  // namespace

HALIDE_REGISTER_GENERATOR(IirBlur, iir_blur)
