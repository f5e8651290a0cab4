// Non-local means denoising of an RGB float image: every pixel becomes the weighted average of
// the pixels in a 7x7 search window around it, each weighted by exp(-patch distance / h^2), where
// the patch distance is the sum of squared RGB differences over the 7x7 patches around the two
// pixels (normalized by the patch area).
#include "Halide.h"

namespace {

using namespace Halide;

class NonLocalMeans : public Generator<NonLocalMeans> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"
    GeneratorParam<int> patch_size{"patch_size", 7, 1, 15};          // odd
    GeneratorParam<int> search_area{"search_area", 7, 1, 21};        // odd

    Input<Buffer<float, 3>> input{"input"};  // x, y, c: RGB in [0, 1]
    Input<float> sigma{"sigma", 0.12f, 0.001f, 1.0f};
    Output<Buffer<float, 3>> output{"output"};

    void generate() {
        const int P = patch_size, S = search_area;
        Func edge = BoundaryConditions::repeat_edge(input);
        clamped(x, y, c) = edge(x, y, c);

        // Squared RGB distance between pixel (x, y) and pixel (x + dx, y + dy).
        Expr dist = 0.0f;
        for (int ch = 0; ch < 3; ch++) {
            Expr e = clamped(x, y, ch) - clamped(x + dx, y + dy, ch);
            dist = dist + e * e;
        }
        d(x, y, dx, dy) = dist;
        // Patch distance: box sum over the P x P patch, vertical pass then horizontal.
        blur_d_y(x, y, dx, dy) = box_sum(d, P, false);
        blur_d(x, y, dx, dy) = box_sum(blur_d_y, P, true);

        Expr inv_h2 = 1.0f / (sigma * sigma * float(P * P));
        weight(x, y, dx, dy) = exp(-blur_d(x, y, dx, dy) * inv_h2);

        // Weighted sums over the search window; channel 3 accumulates the weights.
        with_one(x, y, c) = select(c < 3, clamped(x, y, min(c, 2)), 1.0f);
        s = RDom(-(S / 2), S, -(S / 2), S, "s");
        sums(x, y, c) = 0.0f;
        sums(x, y, c) += weight(x, y, s.x, s.y) * with_one(x + s.x, y + s.y, c);
        output(x, y, c) = sums(x, y, c) / sums(x, y, 3);
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        sigma.set_estimate(0.12f);
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        if (schedule_kind.value() != "manual") return;

        // One kernel, one 32x8 output tile per block. The block walks the search offsets; for
        // each offset the threads fill the pixel-distance tile (38x14 with the patch apron) and
        // its vertical box sums (38x8) in shared memory, then every thread adds its weighted
        // RGB + weight into its accumulators. The input tile with both aprons (44x20x3 floats) is
        // loaded into shared memory once per block.
        output.bound(c, 0, 3).reorder(c, x, y).gpu_tile(x, y, xo, yo, xi, yi, 32, 8).unroll(c);
        sums.compute_at(output, xo).bound(c, 0, 4).reorder(c, x, y).unroll(c).gpu_threads(x, y);
        sums.update().reorder(c, x, y, s.x, s.y).unroll(c).gpu_threads(x, y);
        d.compute_at(sums, s.x).gpu_threads(x, y);
        blur_d_y.compute_at(sums, s.x).gpu_threads(x, y);
        Func input_tile = clamped.in();
        input_tile.compute_at(output, xo).bound(c, 0, 3).reorder(c, x, y).unroll(c).gpu_threads(x, y);
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, dx{"dx"}, dy{"dy"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    RDom s;
    Func clamped{"clamped"}, d{"d"}, blur_d_y{"blur_d_y"}, blur_d{"blur_d"}, weight{"weight"}, with_one{"with_one"},
        sums{"sums"};

    // Sum of f over a centered window of n taps along x (horizontal) or y.
    Expr box_sum(const Func &f, int n, bool horizontal) {
        Expr total;
        for (int i = -(n / 2); i <= n / 2; i++) {
            Expr term = horizontal ? f(x + i, y, dx, dy) : f(x, y + i, dx, dy);
            total = total.defined() ? total + term : term;
        }
        return total;
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(NonLocalMeans, nl_means)
