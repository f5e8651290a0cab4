// Histogram equalization of an 8-bit RGB image on its luma: RGB -> YCbCr (BT.601, 8-bit fixed
// point), a 256-bin histogram of Y, its cumulative distribution, the classic equalization
// curve lut(v) = round(255 (cdf(v) - cdf_min) / (N - cdf_min)), then Y' = lut(Y) with the
// original chroma back to RGB.
#include "Halide.h"

namespace {

using namespace Halide;

// Rounded fixed-point x / 256 (arithmetic shift: floor for negatives).
Expr fixed_round(Expr v) { return (v + 128) >> 8; }

class Hist : public Generator<Hist> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"

    Input<Buffer<uint8_t, 3>> input{"input"};
    Output<Buffer<uint8_t, 3>> output{"output"};

    void generate() {
        Expr r = cast<int32_t>(input(x, y, 0)), g = cast<int32_t>(input(x, y, 1)), b = cast<int32_t>(input(x, y, 2));
        luma(x, y) = cast<uint8_t>(fixed_round(77 * r + 150 * g + 29 * b));  // weights sum to 256
        chroma(x, y) = Tuple(clamp(fixed_round(-43 * r - 85 * g + 128 * b) + 128, 0, 255),   // Cb
                             clamp(fixed_round(128 * r - 107 * g - 21 * b) + 128, 0, 255));  // Cr

        // Histogram of the luma over the whole image.
        hist(i) = 0;
        pixels = RDom(0, input.width(), 0, input.height(), "pixels");
        hist(cast<int32_t>(luma(pixels.x, pixels.y))) += 1;

        // Inclusive prefix sum.
        cdf(i) = hist(i);
        RDom bins(1, 255, "bins");
        cdf(bins) = cdf(bins - 1) + cdf(bins);

        // Smallest non-zero cdf value (the cdf at the darkest luma present).
        Expr total = input.width() * input.height();
        RDom all_bins(0, 256, "all_bins");
        cdf_min() = total;
        cdf_min() = min(cdf_min(), select(hist(all_bins) > 0, cdf(all_bins), total));

        // Equalization curve, in 64-bit so 255 * N cannot overflow for large images.
        Expr den = cast<int64_t>(max(total - cdf_min(), 1));
        Expr num = cast<int64_t>(cdf(i) - cdf_min()) * 255 + den / 2;
        lut(i) = cast<uint8_t>(clamp(num / den, 0, 255));

        // Equalized luma with the original chroma, back to RGB.
        Expr Y = cast<int32_t>(lut(cast<int32_t>(luma(x, y))));
        Expr cb = chroma(x, y)[0] - 128, cr = chroma(x, y)[1] - 128;
        recolored(x, y) = Tuple(clamp(Y + fixed_round(359 * cr), 0, 255),
                                clamp(Y - fixed_round(88 * cb + 183 * cr), 0, 255),
                                clamp(Y + fixed_round(454 * cb), 0, 255));
        output(x, y, c) = cast<uint8_t>(mux(c, {recolored(x, y)[0], recolored(x, y)[1], recolored(x, y)[2]}));
    }

    void schedule() {
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        if (schedule_kind.value() == "manual") {
            // The 256-entry stages only ever see indices 0..255.
            for (Func f : {hist, cdf, lut}) f.bound(i, 0, 256);

            // Histogram: rfactor over 16-row strips. Each block (one strip: 1536x16 pixels, 256
            // threads, coalesced reads along x) builds a private histogram in shared memory
            // with shared-memory atomics, then adds it into the global one with one global
            // atomic per bin. The luma is recomputed inline from the input.
            RVar strip("strip"), row("row"), col_o("col_o"), col_i("col_i");
            Var s("s");
            Func partial = hist.update().split(pixels.y, strip, row, 16, TailStrategy::GuardWithIf).rfactor(strip, s);
            hist.compute_root().gpu_tile(i, io, ii, 256);
            hist.update().atomic().reorder(i, strip).gpu_blocks(strip).gpu_threads(i);
            partial.compute_at(hist, strip).gpu_threads(i);
            partial.update()
                .atomic()
                .split(pixels.x, col_o, col_i, 256, TailStrategy::GuardWithIf)
                .reorder(col_o, row, col_i, s)
                .gpu_threads(col_i);

            // The scan and the min are 256-step serial loops: single-thread kernels
            // (microseconds); the curve is one block of 256 threads.
            cdf.compute_root().gpu_tile(i, io, ii, 256);
            cdf.update().gpu_single_thread();
            cdf_min.compute_root().gpu_single_thread();
            cdf_min.update().gpu_single_thread();
            lut.compute_root().gpu_tile(i, io, ii, 256);

            // Remap: 32x8 pixels per block, each thread one pixel and its 3 channels (chroma
            // and the RGB result computed once, in registers, channels unrolled). The curve is
            // copied into shared memory per block (256 bytes, 32x8 threads).
            output.bound(c, 0, 3)
                .reorder(c, x, y)
                .gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf)
                .unroll(c);
            recolored.compute_at(output, xi);
            lut.in(recolored).compute_at(output, xo).split(i, io, ii, 32).gpu_threads(ii, io);
        }
    }

private:
    Var x{"x"}, y{"y"}, c{"c"}, i{"i"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, io{"io"}, ii{"ii"};
    RDom pixels;  // the histogram's domain, the whole image
    Func luma{"luma"}, chroma{"chroma"}, hist{"hist"}, cdf{"cdf"}, cdf_min{"cdf_min"}, lut{"lut"}, recolored{"recolored"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Hist, hist)
