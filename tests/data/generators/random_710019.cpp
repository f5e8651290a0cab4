// Kept as a test pipeline: the search's costs went stale on it (tests/engine/test_search_costs_current.cpp).
// A random Halide pipeline for training and stress tests, written by
//   hlsched random-pipeline --seed 710019 --stages 10 --writer-version 2
// (the same command writes the same file). 10 stages, 1 input, 2 outputs:
//   in0 (u8, 7680x4320): input, edges repeated
//   down_1 (u8, 3840x2160): average of 2x2 blocks of in0
//   row_max_2 (u8, 2160 rows): maximum over x of down_1
//   box_3 (f32, 7680x4320): stencil (1x7 box) of in0
//   down_4 (f32, 1920x4320): subsampled 4x1 blocks of box_3
//   rotate_5 (f32, 4320x1920): 90 degree rotation of down_4
//   dilate_6 (f32, 4320x1920): dilation (1x7 box) of rotate_5
//   row_hist_7 (i32, 256 entries x 1920 rows): 256-bin histogram of dilate_6, one per row
//   lookup_8 (i32, 7680x4320): values of in0 looked up in row_hist_7
//   mix_9 (f32, 2160 rows): pointwise f32 arithmetic of row_max_2, dilate_6 [output]
//   blur_10 (f32, 7680x4320): stencil (5x3 Gaussian) of lookup_8 [output]
#include "Halide.h"

namespace {

using namespace Halide;

// A table index in [0, size) from a value: scaled, clamped while still a float (NaN and
// infinities land in range too), then clamped as an integer for bounds inference.
Expr index_of(Expr value, float scale, int size) {
    Expr scaled = clamp(cast<float>(value) * scale, 0.0f, float(size - 1));
    return clamp(cast<int32_t>(scaled), 0, size - 1);
}

class RandomPipeline710019 : public Generator<RandomPipeline710019> {
public:
    Input<Buffer<uint8_t, 2>> in0{"in0"};
    Output<Buffer<float, 1>> mix_9{"mix_9"};
    Output<Buffer<float, 2>> blur_10{"blur_10"};

    void generate() {
        Func in0_edge = BoundaryConditions::repeat_edge(in0);

        // down_1: average of 2x2 blocks of in0
        Func down_1("down_1");
        {
            auto tap = [&](int dx, int dy) { return cast<int32_t>(in0_edge(2 * x + dx, 2 * y + dy)); };
            down_1(x, y) = saturating_cast<uint8_t>((tap(0, 0) + tap(1, 0) + tap(0, 1) + tap(1, 1) + 2) / 4);
        }

        // row_max_2: maximum over x of down_1
        Func row_max_2("row_max_2");
        {
            RDom r(0, 3840, "r_row_max_2");
            row_max_2(y) = down_1(0, y);
            row_max_2(y) = max(row_max_2(y), down_1(r, y));
        }

        // box_3: stencil (1x7 box) of in0
        Func box_3("box_3");
        {
            auto tap = [&](int dx, int dy) { return cast<int32_t>(in0_edge(x + dx, y + dy)); };
            box_3(x, y) = cast<float>((tap(0, -3) + tap(0, -2) + tap(0, -1) + tap(0, 0) + tap(0, 1) + tap(0, 2) + tap(0, 3) + 3) / 7);
        }

        // down_4: subsampled 4x1 blocks of box_3
        Func down_4("down_4");
        down_4(x, y) = box_3(4 * x, y);

        // rotate_5: 90 degree rotation of down_4
        Func rotate_5("rotate_5");
        rotate_5(x, y) = down_4(y, 4319 - x);

        // dilate_6: dilation (1x7 box) of rotate_5
        Func dilate_6("dilate_6");
        {
            auto tap = [&](int dx, int dy) { return rotate_5(x + dx, y + dy); };
            dilate_6(x, y) = max(max(max(max(max(max(tap(0, -3), tap(0, -2)), tap(0, -1)), tap(0, 0)), tap(0, 1)), tap(0, 2)), tap(0, 3));
        }

        // row_hist_7: 256-bin histogram of dilate_6, one per row
        Func row_hist_7("row_hist_7");
        {
            RDom r(0, 4320, "r_row_hist_7");
            row_hist_7(i, y) = 0;
            Expr value = dilate_6(r, y);
            row_hist_7(index_of(value, 1.0f, 256), y) += 1;
        }

        // lookup_8: values of in0 looked up in row_hist_7
        Func lookup_8("lookup_8");
        {
            Expr value = in0_edge(x, y);
            lookup_8(x, y) = row_hist_7(index_of(value, 1.0f, 256), y * 4 / 9);
        }

        // mix_9: pointwise f32 arithmetic of row_max_2, dilate_6
        {
            Expr a = row_max_2(y);
            Expr b = dilate_6(2160, y * 8 / 9);
            mix_9(y) = (cast<float>(a) * clamp(b, -1.0f, 1.0f));
        }

        // blur_10: stencil (5x3 Gaussian) of lookup_8
        {
            auto tap = [&](int dx, int dy) { return lookup_8(x + dx, y + dy); };
            blur_10(x, y) = cast<float>((tap(-2, -1) + 4 * tap(-1, -1) + 6 * tap(0, -1) + 4 * tap(1, -1) + tap(2, -1) + 2 * tap(-2, 0) + 8 * tap(-1, 0) + 12 * tap(0, 0) + 8 * tap(1, 0) + 2 * tap(2, 0) + tap(-2, 1) + 4 * tap(-1, 1) + 6 * tap(0, 1) + 4 * tap(1, 1) + tap(2, 1) + 32) / 64);
        }
    }

    void schedule() {
        in0.set_estimates({{0, 7680}, {0, 4320}});
        mix_9.set_estimates({{0, 2160}});
        blur_10.set_estimates({{0, 7680}, {0, 4320}});
        // HLSCHED_SCHEDULE
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, i{"i"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RandomPipeline710019, random_710019)
