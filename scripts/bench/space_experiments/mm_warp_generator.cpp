// Experiment (issue 12 item 6): mat_mul's algorithm with a per-warp schedule (gpu_lanes, slabs in shared).
#include "Halide.h"
namespace {
using namespace Halide;
class MatMulWarp : public Generator<MatMulWarp> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "warp"};
    GeneratorParam<int> slab{"slab", 16};
    GeneratorParam<int> ys{"ys", 8};
    Input<Buffer<float, 2>> A{"A"};
    Input<Buffer<float, 2>> B{"B"};
    Output<Buffer<float, 2>> C{"C"};
    void generate() {
        k = RDom(0, A.dim(0).extent(), "k");
        prod(x, y) = 0.0f;
        prod(x, y) += A(k, y) * B(x, k);
        C(x, y) = prod(x, y);
    }
    void schedule() {
        const int size = 2048;
        A.set_estimates({{0, size}, {0, size}});
        B.set_estimates({{0, size}, {0, size}});
        C.set_estimates({{0, size}, {0, size}});
        Var xo, xi, yo, yi, f, fo, fi;
        RVar ks, kw;
        C.split(x, xo, xi, 32).split(y, yo, yi, ys).reorder(xi, yi, xo, yo).gpu_lanes(xi).unroll(yi).gpu_blocks(xo, yo);
        prod.compute_at(C, xo).store_in(MemoryType::Register).gpu_lanes(x).unroll(y);
        prod.update().split(k, ks, kw, slab).reorder(x, y, kw, ks).gpu_lanes(x).unroll(y);
        for (Func w : {A.in(), B.in()})
            w.compute_at(prod, ks).gpu_lanes(w.args()[0]);
    }
private:
    Var x{"x"}, y{"y"};
    RDom k;
    Func prod{"prod"};
};
}  // namespace
HALIDE_REGISTER_GENERATOR(MatMulWarp, mat_mul_warp)
