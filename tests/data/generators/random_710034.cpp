// Kept as a test pipeline: the search's costs went stale on it (tests/engine/test_search_costs_current.cpp).
// A random Halide pipeline for training and stress tests, written by
//   hlsched random-pipeline --seed 710034 --stages 12 --writer-version 2
// (the same command writes the same file). 12 stages, 1 input, 2 outputs:
//   in0 (i32, 2048x2048x3): input, mirrored inside the edges
//   column_sum_1 (i32, 2048 columns): sum over y, c of in0
//   warp_2 (f32, 2048x2048x3): gather of in0 displaced by up to 3 pixels by column_sum_1
//   up_3 (f32, 4096x4096x3): bilinear 2x2 upsampling of warp_2
//   curve_4 (i16, 256 entries): 256-entry S-curve [output]
//   down_5 (f32, 2048x1024x3): average of 2x4 blocks of up_3
//   blur_6 (u8, 2048x2048x3): stencil (5-tap vertical binomial) of in0
//   row_hist_7 (f32, 64 entries x 1024 rows): value-weighted 64-bin histogram of down_5, one per row
//   lookup_8 (u16, 2048x2048x3): values of blur_6 looked up in row_hist_7
//   down_9 (f32, 1366x2048x3): subsampled 3x2 blocks of up_3
//   channel_mix_10 (i32, 2048x2048x2): 3 to 2 channel mix of blur_6, then max(sum + bias, 0)
//   mix_11 (f32, 2048x2048x3): pointwise f32 arithmetic of lookup_8, down_9, channel_mix_10
//   dilate_12 (f32, 2048x2048x3): dilation (9-tap vertical binomial) of mix_11 [output]
#include "Halide.h"

namespace {

using namespace Halide;

// A table index in [0, size) from a value: scaled, clamped while still a float (NaN and
// infinities land in range too), then clamped as an integer for bounds inference.
Expr index_of(Expr value, float scale, int size) {
    Expr scaled = clamp(cast<float>(value) * scale, 0.0f, float(size - 1));
    return clamp(cast<int32_t>(scaled), 0, size - 1);
}

class RandomPipeline710034 : public Generator<RandomPipeline710034> {
public:
    Input<Buffer<int32_t, 3>> in0{"in0"};
    Output<Buffer<int16_t, 1>> curve_4{"curve_4"};
    Output<Buffer<float, 3>> dilate_12{"dilate_12"};

    void generate() {
        Func in0_mirror = BoundaryConditions::mirror_interior(in0);

        // column_sum_1: sum over y, c of in0
        Func column_sum_1("column_sum_1");
        {
            RDom r(0, 2048, 0, 3, "r_column_sum_1");
            column_sum_1(x) = 0;
            column_sum_1(x) += in0_mirror(x, r.x, r.y);
        }

        // warp_2: gather of in0 displaced by up to 3 pixels by column_sum_1
        Func warp_2("warp_2");
        {
            Expr displacement = column_sum_1(x);
            Expr dx = index_of(displacement, 0.0625f, 7) - 3;
            warp_2(x, y, c) = cast<float>(in0_mirror(clamp(x + dx, 0, 2047), y, c));
        }

        // up_3: bilinear 2x2 upsampling of warp_2
        Func up_3("up_3");
        {
            Expr nx = 2 * (x % 2) - 1, ny = 2 * (y % 2) - 1;  // side of the nearer neighbour
            auto tap = [&](Expr dx, Expr dy) { return warp_2(x / 2 + dx, y / 2 + dy, c); };
            up_3(x, y, c) = (9 * tap(0, 0) + 3 * tap(nx, 0) + 3 * tap(0, ny) + tap(nx, ny)) / 16.0f;
        }

        // curve_4: 256-entry S-curve
        curve_4(i) = saturating_cast<int16_t>((0.5f - 0.5f * cos(cast<float>(i) / 255.0f * 3.14159265f)) * 32767.0f);

        // down_5: average of 2x4 blocks of up_3
        Func down_5("down_5");
        {
            auto tap = [&](int dx, int dy) { return up_3(2 * x + dx, 4 * y + dy, c); };
            down_5(x, y, c) = (tap(0, 0) + tap(1, 0) + tap(0, 1) + tap(1, 1) + tap(0, 2) + tap(1, 2) + tap(0, 3) + tap(1, 3)) / 8.0f;
        }

        // blur_6: stencil (5-tap vertical binomial) of in0
        Func blur_6("blur_6");
        {
            auto tap = [&](int dx, int dy) { return in0_mirror(x + dx, y + dy, c); };
            blur_6(x, y, c) = cast<uint8_t>((tap(0, -2) + 4 * tap(0, -1) + 6 * tap(0, 0) + 4 * tap(0, 1) + tap(0, 2) + 8) / 16);
        }

        // row_hist_7: value-weighted 64-bin histogram of down_5, one per row
        Func row_hist_7("row_hist_7");
        {
            RDom r(0, 2048, 0, 3, "r_row_hist_7");
            row_hist_7(i, y) = 0.0f;
            Expr value = down_5(r.x, y, r.y);
            row_hist_7(index_of(value, 0.25f, 64), y) += value;
        }

        // lookup_8: values of blur_6 looked up in row_hist_7
        Func lookup_8("lookup_8");
        {
            Expr value = blur_6(x, y, c);
            lookup_8(x, y, c) = saturating_cast<uint16_t>(row_hist_7(index_of(value, 0.25f, 64), y / 2));
        }

        // down_9: subsampled 3x2 blocks of up_3
        Func down_9("down_9");
        down_9(x, y, c) = up_3(3 * x, 2 * y, c);

        // channel_mix_10: 3 to 2 channel mix of blur_6, then max(sum + bias, 0)
        Func channel_mix_10("channel_mix_10");
        {
            Func channel_mix_10_sum("channel_mix_10_sum");
            RDom r(0, 3, "r_channel_mix_10");
            channel_mix_10_sum(x, y, c) = 0;
            channel_mix_10_sum(x, y, c) += cast<int32_t>(blur_6(x, y, r)) * ((c * 4 + r * 2) % 6 - 2);
            channel_mix_10(x, y, c) = max(channel_mix_10_sum(x, y, c) + (c % 2), 0);
        }

        // mix_11: pointwise f32 arithmetic of lookup_8, down_9, channel_mix_10
        Func mix_11("mix_11");
        {
            Expr a = lookup_8(x, y, c);
            Expr b = down_9(x * 2 / 3, y, c);
            Expr d = channel_mix_10(x, y, c * 2 / 3);
            mix_11(x, y, c) = (log(abs(max(cast<float>(d), cast<float>(a))) + 1.0f) / (abs(b) + 1.0f));
        }

        // dilate_12: dilation (9-tap vertical binomial) of mix_11
        {
            auto tap = [&](int dx, int dy) { return mix_11(x + dx, y + dy, c); };
            dilate_12(x, y, c) = max(max(max(max(max(max(max(max(tap(0, -4), tap(0, -3)), tap(0, -2)), tap(0, -1)), tap(0, 0)), tap(0, 1)), tap(0, 2)), tap(0, 3)), tap(0, 4));
        }
    }

    void schedule() {
        in0.set_estimates({{0, 2048}, {0, 2048}, {0, 3}});
        curve_4.set_estimates({{0, 256}});
        dilate_12.set_estimates({{0, 2048}, {0, 2048}, {0, 3}});
        // HLSCHED_SCHEDULE
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, i{"i"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RandomPipeline710034, random_710034)
