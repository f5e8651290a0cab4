// Raw camera pipeline: a 10-bit GRBG Bayer mosaic to 8-bit RGB. Hot/dead pixel suppression,
// deinterleaving into the four Bayer planes, edge-directed demosaicking with color-difference
// interpolation, a white-balance/color correction matrix interpolated by color temperature (fixed
// point), and a gamma + contrast tone curve applied through a 1024-entry LUT.
//
// output(x, y) is raw pixel (x + 16, y + 12) of the input (an even offset: same Bayer phase), so
// the input must be at least 32 x 24 larger than the output (the filters reach 4 pixels out).
#include "Halide.h"

namespace {

using namespace Halide;

class CameraPipe : public Generator<CameraPipe> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"

    Input<Buffer<uint16_t, 2>> input{"input"};            // raw GRBG mosaic, 10-bit values
    Input<Buffer<float, 2>> matrix_3200{"matrix_3200"};   // 4 x 3: RGB->RGB + offset, calibrated at 3200K
    Input<Buffer<float, 2>> matrix_7000{"matrix_7000"};   // same at 7000K
    Input<float> color_temp{"color_temp", 3700.0f, 1000.0f, 20000.0f};
    Input<float> gamma{"gamma", 2.2f, 0.5f, 5.0f};
    Input<float> contrast{"contrast", 50.0f, 0.0f, 100.0f};
    Input<int> black_level{"black_level", 25, 0, 1000};
    Input<int> white_level{"white_level", 1023, 1, 1023};
    Output<Buffer<uint8_t, 3>> output{"output"};          // x, y, c: RGB

    void generate() {
        shifted(x, y) = cast<int16_t>(input(x + 16, y + 12));

        // Hot/dead pixels: clamp each sample into the range of its four nearest same-color neighbors.
        Expr n0 = shifted(x - 2, y), n1 = shifted(x + 2, y), n2 = shifted(x, y - 2), n3 = shifted(x, y + 2);
        denoised(x, y) = clamp(shifted(x, y), min(min(n0, n1), min(n2, n3)), max(max(n0, n1), max(n2, n3)));

        // Quad-resolution planes: c = 0 G (on red rows), 1 R, 2 B, 3 G (on blue rows).
        deinterleaved(x, y, c) = select(c == 0, denoised(2 * x, 2 * y), c == 1, denoised(2 * x + 1, 2 * y),
                                        c == 2, denoised(2 * x, 2 * y + 1), denoised(2 * x + 1, 2 * y + 1));
        demosaic();

        // Color correction: a matrix interpolated in 1/T between the two calibrations, 8.8 fixed point.
        Expr t = (1.0f / color_temp - 1.0f / 3200.0f) / (1.0f / 7000.0f - 1.0f / 3200.0f);
        Expr m = matrix_3200(x, y) * (1.0f - t) + matrix_7000(x, y) * t;
        matrix(x, y) = cast<int32_t>(m * 256.0f);
        corrected(x, y, c) = (matrix(0, c) * demosaiced(x, y, 0) + matrix(1, c) * demosaiced(x, y, 1) +
                              matrix(2, c) * demosaiced(x, y, 2) + matrix(3, c)) >> 8;

        // Tone curve over the 10-bit range: normalize by black/white level, gamma, then an S-curve
        // (blend toward smoothstep by contrast / 100).
        Expr v = clamp(cast<float>(x - black_level) / cast<float>(white_level - black_level), 0.0f, 1.0f);
        Expr g = pow(v, 1.0f / gamma);
        Expr s = g * g * (3.0f - 2.0f * g);
        Expr toned = g + (contrast * 0.01f) * (s - g);
        curve(x) = cast<uint8_t>(clamp(toned * 255.0f + 0.5f, 0.0f, 255.0f));

        output(x, y, c) = curve(clamp(corrected(x, y, c), 0, 1023));
    }

    void schedule() {
        input.set_estimates({{0, 2592}, {0, 1968}});
        matrix_3200.set_estimates({{0, 4}, {0, 3}});
        matrix_7000.set_estimates({{0, 4}, {0, 3}});
        color_temp.set_estimate(3700.0f);
        gamma.set_estimate(2.2f);
        contrast.set_estimate(50.0f);
        black_level.set_estimate(25);
        white_level.set_estimate(1023);
        output.set_estimates({{0, 2560}, {0, 1920}, {0, 3}});
        if (schedule_kind.value() != "manual") return;

        // The LUT (1024 pow()s) and the 4x3 fixed-point matrix are tiny kernels of their own.
        curve.compute_root().gpu_tile(x, xo, xi, 256, TailStrategy::RoundUp);
        matrix.compute_root().gpu_single_thread();

        // Everything else is one kernel. A thread produces one Bayer quad (2x2 output pixels, all
        // three channels, unrolled) so that the parity selects fold away; a block covers 64x16
        // output pixels (32x8 quads, 256 threads). The output's origin is pinned to (0, 0) and its
        // size to whole tiles (2560x1920 is 40x120 tiles), so the compiler knows each unrolled
        // pixel's Bayer phase and needs no tail guards.
        output.dim(0).set_min(0).set_extent((output.dim(0).extent() / 64) * 64);
        output.dim(1).set_min(0).set_extent((output.dim(1).extent() / 16) * 16);
        output.bound(c, 0, 3)
            .split(x, xo, xi, 64, TailStrategy::RoundUp)
            .split(y, yo, yi, 16, TailStrategy::RoundUp)
            .split(xi, xi, xii, 2)
            .split(yi, yi, yii, 2)
            .reorder(c, xii, yii, xi, yi, xo, yo)
            .unroll(c)
            .unroll(xii)
            .unroll(yii)
            .gpu_blocks(xo, yo)
            .gpu_threads(xi, yi);
        // Stencil producers staged in shared memory per tile (34x10 quads with the halo): the
        // denoised Bayer planes (int16), then green at the red and blue sites, which the
        // color-difference interpolation reads at the neighboring quads.
        deinterleaved.compute_at(output, xo).bound(c, 0, 4).reorder(c, x, y).unroll(c).gpu_threads(x, y);
        g_at_r.compute_at(output, xo).gpu_threads(x, y);
        g_at_b.compute_at(output, xo).gpu_threads(x, y);
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, xii{"xii"}, yii{"yii"};
    Func shifted{"shifted"}, denoised{"denoised"}, deinterleaved{"deinterleaved"};
    Func g_at_r{"g_at_r"}, g_at_b{"g_at_b"}, r_at_gr{"r_at_gr"}, b_at_gr{"b_at_gr"}, r_at_gb{"r_at_gb"},
        b_at_gb{"b_at_gb"}, r_at_b{"r_at_b"}, b_at_r{"b_at_r"};
    Func demosaiced{"demosaiced"}, matrix{"matrix"}, corrected{"corrected"}, curve{"curve"};

    // Edge-directed demosaic at quad resolution; defines demosaiced(x, y, c) at full resolution.
    void demosaic() {
        auto gr = [&](Expr a, Expr b) { return cast<int32_t>(deinterleaved(a, b, 0)); };
        auto r = [&](Expr a, Expr b) { return cast<int32_t>(deinterleaved(a, b, 1)); };
        auto b = [&](Expr a, Expr b_) { return cast<int32_t>(deinterleaved(a, b_, 2)); };
        auto gb = [&](Expr a, Expr b_) { return cast<int32_t>(deinterleaved(a, b_, 3)); };

        // Green at red/blue sites: average along the direction of the smaller gradient.
        auto directional = [](Expr h0, Expr h1, Expr v0, Expr v1) {
            Expr dh = absd(h0, h1), dv = absd(v0, v1);
            return select(dh < dv, (h0 + h1) / 2, dv < dh, (v0 + v1) / 2, (h0 + h1 + v0 + v1) / 4);
        };
        g_at_r(x, y) = directional(gr(x, y), gr(x + 1, y), gb(x, y - 1), gb(x, y));
        g_at_b(x, y) = directional(gb(x - 1, y), gb(x, y), gr(x, y), gr(x, y + 1));

        // Red/blue at green sites: the green value plus the mean color difference of the two
        // neighbors of that color (horizontal or vertical depending on the row).
        Expr r_diff_l = r(x - 1, y) - g_at_r(x - 1, y), r_diff = r(x, y) - g_at_r(x, y);
        Expr b_diff_u = b(x, y - 1) - g_at_b(x, y - 1), b_diff = b(x, y) - g_at_b(x, y);
        Expr r_diff_d = r(x, y + 1) - g_at_r(x, y + 1), b_diff_r = b(x + 1, y) - g_at_b(x + 1, y);
        r_at_gr(x, y) = gr(x, y) + (r_diff_l + r_diff) / 2;
        b_at_gr(x, y) = gr(x, y) + (b_diff_u + b_diff) / 2;
        r_at_gb(x, y) = gb(x, y) + (r_diff + r_diff_d) / 2;
        b_at_gb(x, y) = gb(x, y) + (b_diff + b_diff_r) / 2;

        // Red at blue sites / blue at red sites: diagonal neighbors, along the diagonal whose raw
        // values differ less, interpolating color differences.
        auto diagonal = [](Expr a0, Expr a1, Expr b0, Expr b1, Expr da0, Expr da1, Expr db0, Expr db1) {
            Expr ga = absd(a0, a1), gb_ = absd(b0, b1);
            return select(ga < gb_, (da0 + da1) / 2, gb_ < ga, (db0 + db1) / 2, (da0 + da1 + db0 + db1) / 4);
        };
        r_at_b(x, y) = g_at_b(x, y) + diagonal(r(x - 1, y), r(x, y + 1), r(x, y), r(x - 1, y + 1),
                                               r(x - 1, y) - g_at_r(x - 1, y), r(x, y + 1) - g_at_r(x, y + 1),
                                               r(x, y) - g_at_r(x, y), r(x - 1, y + 1) - g_at_r(x - 1, y + 1));
        b_at_r(x, y) = g_at_r(x, y) + diagonal(b(x, y - 1), b(x + 1, y), b(x + 1, y - 1), b(x, y),
                                               b(x, y - 1) - g_at_b(x, y - 1), b(x + 1, y) - g_at_b(x + 1, y),
                                               b(x + 1, y - 1) - g_at_b(x + 1, y - 1), b(x, y) - g_at_b(x, y));

        // Back to full resolution: pick by Bayer phase (GR / BG).
        Expr qx = x / 2, qy = y / 2;
        Expr odd_x = x % 2 == 1, odd_y = y % 2 == 1;
        Expr red = select(odd_y, select(odd_x, r_at_gb(qx, qy), r_at_b(qx, qy)), select(odd_x, r(qx, qy), r_at_gr(qx, qy)));
        Expr green = select(odd_y, select(odd_x, gb(qx, qy), g_at_b(qx, qy)), select(odd_x, g_at_r(qx, qy), gr(qx, qy)));
        Expr blue = select(odd_y, select(odd_x, b_at_gb(qx, qy), b(qx, qy)), select(odd_x, b_at_r(qx, qy), b_at_gr(qx, qy)));
        demosaiced(x, y, c) = select(c == 0, red, c == 1, green, blue);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(CameraPipe, camera_pipe)
