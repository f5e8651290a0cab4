// Synthetic depth-of-field from a rectified stereo pair: a disparity search (per-pixel absolute
// RGB difference against the right image shifted by each of `slices` disparities, aggregated
// over 9x9 windows, arg-min over disparity) gives a depth map; then each output pixel gathers the
// left image over a disk-shaped aperture (49 samples on a stride-2 grid, radius 8), keeping the
// samples whose own circle of confusion (|depth - focus_depth| * blur_radius_scale) reaches it.
#include "Halide.h"

namespace {

using namespace Halide;

class LensBlur : public Generator<LensBlur> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"
    GeneratorParam<int> slices{"slices", 32, 2, 64};                  // disparities searched

    Input<Buffer<uint8_t, 3>> left_im{"left_im"};    // x, y, c: RGB, the view that gets blurred
    Input<Buffer<uint8_t, 3>> right_im{"right_im"};  // x, y, c: RGB, same scene seen from the right
    Input<int> focus_depth{"focus_depth", 13, 0, 64};
    Input<float> blur_radius_scale{"blur_radius_scale", 0.5f, 0.0f, 2.0f};
    Output<Buffer<uint8_t, 3>> output{"output"};

    void generate() {
        Func left_clamped = BoundaryConditions::repeat_edge(left_im);
        left(x, y, k) = left_clamped(x, y, k);
        Func right = BoundaryConditions::repeat_edge(right_im);

        // Matching cost of disparity z: sum of absolute RGB differences (max 765, uint16), box-
        // filtered over 9x9 (max 61965, still uint16).
        Expr diff = cast<uint16_t>(absd(left(x, y, 0), right(x - z, y, 0))) + absd(left(x, y, 1), right(x - z, y, 1)) +
                    absd(left(x, y, 2), right(x - z, y, 2));
        cost(x, y, z) = diff;
        Expr sx = cost(x - 4, y, z);
        for (int i = -3; i <= 4; i++) sx = sx + cost(x + i, y, z);
        cost_x(x, y, z) = sx;
        Expr sy = cost_x(x, y - 4, z);
        for (int i = -3; i <= 4; i++) sy = sy + cost_x(x, y + i, z);
        cost_xy(x, y, z) = sy;

        // Arg-min over disparities (first minimum wins on ties).
        rz = RDom(0, slices, "rz");
        best(x, y) = Tuple(0, cast<uint16_t>(65535));
        Expr c = cost_xy(x, y, rz);
        best(x, y) = Tuple(select(c < best(x, y)[1], rz, best(x, y)[0]), min(c, best(x, y)[1]));
        depth(x, y) = best(x, y)[0];

        // Squared circle-of-confusion radius, read at the (edge-clamped) sample positions.
        Expr coc = cast<float>(abs(depth(clamp(x, 0, left_im.width() - 1), clamp(y, 0, left_im.height() - 1)) -
                                   focus_depth)) *
                   blur_radius_scale;
        coc_sq(x, y) = coc * coc;

        // Gather over the aperture: channels 0-2 weighted color, channel 3 the weight.
        color_and_one(x, y, k) = select(k < 3, cast<int32_t>(left(x, y, min(k, 2))), 1);
        RDom r(-4, 9, -4, 9, "r");
        r.where(r.x * r.x + r.y * r.y <= 16);
        Expr dx = 2 * r.x, dy = 2 * r.y;
        Expr hit = coc_sq(x + dx, y + dy) >= cast<float>(dx * dx + dy * dy);
        gathered(x, y, k) = 0;
        gathered(x, y, k) += select(hit, color_and_one(x + dx, y + dy, k), 0);

        Expr weight = gathered(x, y, 3);  // >= 1: the center sample always contributes
        output(x, y, k) = cast<uint8_t>((gathered(x, y, k) + weight / 2) / weight);
    }

    void schedule() {
        left_im.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        right_im.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        focus_depth.set_estimate(13);
        blur_radius_scale.set_estimate(0.5f);
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        if (schedule_kind.value() != "manual") return;

        // Tails: intermediate Funcs round up to whole tiles (their consumers clamp coordinates,
        // extra values are harmless) and outputs shift the last tile inwards, so every tile and
        // shared-memory stage has a constant size and no per-thread guards.
        // Kernel 1: the disparity search without ever materializing the W x H x slices cost
        // volume. A block owns a 32x8 tile and walks the disparities 8 at a time: the raw costs
        // (40x16x8 with the window's halo) and their horizontal sums (32x16x8) are staged in shared
        // memory (10 KB + 8 KB), then each thread folds 8 vertical sums into its running arg-min.
        best.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::RoundUp);
        best.update()
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::RoundUp)
            .split(rz.x, rzo, rzi, 8)
            .reorder(rzi, xi, yi, rzo, xo, yo);
        cost.compute_at(best, rzo).gpu_threads(x, y);
        cost_x.compute_at(best, rzo).gpu_threads(x, y);

        // Kernel 2: the aperture gather. Each thread accumulates its pixel's four sums in
        // registers; the per-tile footprint of the sample sources (tile + 8-pixel apron: the
        // squared radii as float, the left image as uint8) is staged in shared memory, with
        // 2 rows per thread to stay within 1024 threads.
        output.bound(k, 0, 3).reorder(k, x, y).gpu_tile(x, y, xo, yo, xi, yi, 32, 8).unroll(k);
        gathered.compute_at(output, xi).bound(k, 0, 4).unroll(k);
        gathered.update().unroll(k);
        coc_sq.compute_at(output, xo).split(y, yo, yi, 2).reorder(yi, x, yo).gpu_threads(x, yo);
        Func left_tile = left.in(color_and_one);
        left_tile.compute_at(output, xo).split(y, yo, yi, 2).reorder(k, yi, x, yo).unroll(k).gpu_threads(x, yo);
    }

private:
    Var x{"x"}, y{"y"}, z{"z"}, k{"k"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    RDom rz;
    RVar rzo{"rzo"}, rzi{"rzi"};
    Func left{"left"}, cost{"cost"}, cost_x{"cost_x"}, cost_xy{"cost_xy"}, best{"best"}, depth{"depth"};
    Func coc_sq{"coc_sq"}, color_and_one{"color_and_one"}, gathered{"gathered"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(LensBlur, lens_blur)
