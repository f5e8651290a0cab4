// Circular max filter of radius 26 over an RGB float image (edges repeated). The disc is cut
// into vertical columns: the column at horizontal offset dx has half-height
// h(dx) = floor(sqrt(r^2 - dx^2)). Vertical maxima over power-of-two spans are built as a
// doubling pyramid (level k: max over rows [y, y + 2^k)), and any column span 2h+1 is the max
// of two overlapping level-k spans with 2^k <= 2h+1 < 2^(k+1).
#include <vector>

#include "Halide.h"

namespace {

using namespace Halide;

// Level k of the vertical doubling pyramid, from level k-1.
Func doubling_level(Func prev, int k) {
    Var x("x"), y("y"), c("c");
    Func out("vmax_" + std::to_string(k));
    out(x, y, c) = max(prev(x, y, c), prev(x, y + (1 << (k - 1)), c));
    return out;
}

int floor_log2(int v) {
    int k = 0;
    while ((2 << k) <= v) k++;
    return k;
}

class MaxFilter : public Generator<MaxFilter> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"
    GeneratorParam<int> radius{"radius", 26, 1, 64};

    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 3>> output{"output"};

    void generate() {
        const int r = radius;
        clamped(x, y, c) = input(clamp(x, 0, input.width() - 1), clamp(y, 0, input.height() - 1), c);

        // Column half-heights and the pyramid level each column needs.
        std::vector<int> half_height(2 * r + 1);
        int top_level = 0;
        for (int dx = -r; dx <= r; dx++) {
            int h = 0;
            while ((h + 1) * (h + 1) + dx * dx <= r * r) h++;
            half_height[dx + r] = h;
            top_level = std::max(top_level, floor_log2(2 * h + 1));
        }
        levels.push_back(clamped);
        for (int k = 1; k <= top_level; k++) levels.push_back(doubling_level(levels.back(), k));

        // Max over column spans [y - h, y + h] at x + dx, for every column of the disc.
        Expr result;
        for (int dx = -r; dx <= r; dx++) {
            const int h = half_height[dx + r], k = floor_log2(2 * h + 1);
            Expr column = max(levels[k](x + dx, y - h, c), levels[k](x + dx, y + h + 1 - (1 << k), c));
            result = result.defined() ? max(result, column) : column;
        }
        output(x, y, c) = result;
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        if (schedule_kind.value() == "manual") {
            // Each pyramid level is its own cheap, memory-bound kernel: 32x8 tiles, coalesced in
            // x, channel as the third block dimension.
            const int top = (int)levels.size() - 1;
            for (int k = 1; k <= top; k++) {
                levels[k].compute_root()
                    .gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf)
                    .gpu_blocks(c);
            }
            // The filter: 32x32 output tiles per block, 32x8 threads, 4 rows per thread. Nearly
            // all of the 2*(2r+1) taps read the two top levels (for r = 26: 41 columns use level
            // 5, 8 use level 4), so the parts of those two levels that a tile touches (72x53 and
            // 80x47 floats, ~30 KB) are staged in shared memory; the few remaining taps go
            // through the L1 cache.
            output.gpu_tile(x, y, xo, yo, xi, yi, 32, 32, TailStrategy::GuardWithIf)
                .split(yi, yi, yii, 4, TailStrategy::GuardWithIf)
                .reorder(yii, xi, yi, xo, yo, c)
                .unroll(yii)
                .gpu_blocks(c);
            for (int k = std::max(top - 1, 1); k <= top; k++) {
                levels[k].in(output)
                    .compute_at(output, xo)
                    .split(y, y, yi, 8, TailStrategy::RoundUp)
                    .unroll(yi)
                    .gpu_threads(x, y);
            }
        }
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, yii{"yii"};
    Func clamped{"clamped"};
    std::vector<Func> levels;
};

}  // namespace

HALIDE_REGISTER_GENERATOR(MaxFilter, max_filter)
