// Test: a source registering two generators; --generator picks one.
#include "Halide.h"

namespace {

using namespace Halide;

class Brighten : public Generator<Brighten> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    void generate() { output(x, y) = input(x, y) * 1.25f; }
    void schedule() {
        input.set_estimates({{0, 512}, {0, 512}});
        output.set_estimates({{0, 512}, {0, 512}});
    }

private:
    Var x{"x"}, y{"y"};
};

class Darken : public Generator<Darken> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    void generate() { output(x, y) = input(x, y) * 0.75f; }
    void schedule() {
        input.set_estimates({{0, 512}, {0, 512}});
        output.set_estimates({{0, 512}, {0, 512}});
    }

private:
    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Brighten, brighten)
HALIDE_REGISTER_GENERATOR(Darken, darken)
