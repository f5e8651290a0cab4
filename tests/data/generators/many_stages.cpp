// Test pipeline: many stages. `shape=chain`: `stages` stencil and pointwise Funcs one after the
// other. `shape=wide`: a DAG of that many Funcs in eight branches that read one another's
// results, merged pairwise at the end into three outputs (the branches share producers).
#include "Halide.h"

#include <string>
#include <vector>

namespace {

using namespace Halide;

class ManyStages : public Generator<ManyStages> {
public:
    GeneratorParam<int> stages{"stages", 150, 8, 400};
    GeneratorParam<std::string> shape{"shape", "chain"};  // chain | wide
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    Output<Buffer<float, 2>> edges{"edges"};
    Output<Buffer<float, 2>> average{"average"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        const int n = stages;
        std::vector<Func> last;
        if (std::string(shape) == "wide") {
            const int branches = 8;
            last.assign(branches, clamped);
            for (int k = 0; k < n; k++) {
                const int b = k % branches;
                const Func &mine = last[b], &neighbour = last[(b + 1) % branches];
                last[b] = step(k, mine, neighbour);
            }
        } else {
            Func previous = clamped;
            for (int k = 0; k < n; k++) previous = step(k, previous, previous);
            last = {previous, previous};
        }
        const size_t half = last.size() / 2;
        output(x, y) = last[0](x, y) + last[half](x, y);
        edges(x, y) = abs(last[half - 1](x + 1, y) - last[last.size() - 1](x - 1, y));
        average(x, y) = (last[0](x, y) + last[last.size() - 1](x, y)) * 0.5f;
    }

    void schedule() {
        input.set_estimates({{0, 2048}, {0, 2048}});
        output.set_estimates({{0, 2048}, {0, 2048}});
        edges.set_estimates({{0, 2048}, {0, 2048}});
        average.set_estimates({{0, 2048}, {0, 2048}});
        // HLSCHED_SCHEDULE
    }

private:
    // Stage k: a 3-tap stencil along x or y (every third stage), else a pointwise mix.
    Func step(int k, const Func &a, const Func &b) {
        Func f("stage_" + std::to_string(k));
        switch (k % 3) {
            case 0: f(x, y) = (a(x - 1, y) + a(x, y) * 2.0f + b(x + 1, y)) * 0.25f; break;
            case 1: f(x, y) = (a(x, y - 1) + a(x, y) * 2.0f + b(x, y + 1)) * 0.25f; break;
            default: f(x, y) = a(x, y) * 0.75f + b(x, y) * 0.25f + 0.01f * float(k); break;
        }
        return f;
    }

    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ManyStages, many_stages)
