// A chain of 32 5x5 stencils over a 16-bit image: each stage is a full (non-separated) 25-tap
// binomial filter [1 4 6 4 1]^T [1 4 6 4 1] / 256 with rounding, in 32-bit integer arithmetic.
// Only the input is clamped at the edges; each stage's domain grows by 2 pixels per side.
#include <vector>

#include "Halide.h"

namespace {

using namespace Halide;

// The 5x5 stencil of `prev` at (x, y).
Expr stencil(Func prev, Var x, Var y) {
    static const int w[5] = {1, 4, 6, 4, 1};
    Expr sum = cast<uint32_t>(0);
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++)
            sum += cast<uint32_t>(prev(x + dx, y + dy)) * (w[dx + 2] * w[dy + 2]);
    return cast<uint16_t>((sum + 128) >> 8);
}

// One intermediate stage reading `prev`.
Func stencil_stage(Func prev, int index) {
    Var x("x"), y("y");
    Func out("stage_" + std::to_string(index));
    out(x, y) = stencil(prev, x, y);
    return out;
}

class StencilChain : public Generator<StencilChain> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"
    GeneratorParam<int> num_stages{"stages", 32, 1, 64};

    Input<Buffer<uint16_t, 2>> input{"input"};
    Output<Buffer<uint16_t, 2>> output{"output"};

    void generate() {
        clamped(x, y) = input(clamp(x, 0, input.width() - 1), clamp(y, 0, input.height() - 1));
        stages.push_back(clamped);
        for (int i = 1; i < num_stages; i++) stages.push_back(stencil_stage(stages.back(), i));
        output(x, y) = stencil(stages.back(), x, y);  // the last stage
        stages.push_back(output);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 2560}});
        output.set_estimates({{0, 1536}, {0, 2560}});
        if (schedule_kind.value() == "manual") {
            // Stages are fused in groups of 4 (one kernel each: 8 kernels for 32 stages). The
            // last stage of a group is compute_root with 32x32 tiles per block, 32x8 threads and
            // 4 rows per thread (unrolled, so the overlapping 5-row windows share loads). The 3
            // stages before it are computed per tile in shared memory (36^2, 40^2, 44^2 pixels),
            // and the group's input (previous group's result, or the clamped input) is staged
            // too (48^2): ~16 KB of shared memory per block, and all 25 taps of every stage read
            // shared memory instead of global. Producers use 4 rows per thread as well, so the
            // block is at most 48x12 threads.
            const int group = 4;
            const int n = (int)stages.size() - 1;  // stages[0] is the clamped input, stages[n] the output
            int prev_root = 0;
            while (prev_root < n) {
                const int root = std::min(prev_root + group, n);
                Func r = stages[root];
                r.compute_root()
                    .gpu_tile(x, y, xo, yo, xi, yi, 32, 32, TailStrategy::GuardWithIf)
                    .split(yi, yi, yii, 4, TailStrategy::GuardWithIf)
                    .reorder(yii, xi, yi, xo, yo)
                    .unroll(yii);
                for (int j = prev_root + 1; j < root; j++) {
                    stages[j].compute_at(r, xo)
                        .split(y, y, yi, 4, TailStrategy::RoundUp)
                        .unroll(yi)
                        .gpu_threads(x, y);
                }
                stages[prev_root].in(stages[prev_root + 1])
                    .compute_at(r, xo)
                    .split(y, y, yi, 4, TailStrategy::RoundUp)
                    .unroll(yi)
                    .gpu_threads(x, y);
                prev_root = root;
            }
        }
    }

private:
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, yii{"yii"};
    Func clamped{"clamped"};
    std::vector<Func> stages;
};

}  // namespace

HALIDE_REGISTER_GENERATOR(StencilChain, stencil_chain)
