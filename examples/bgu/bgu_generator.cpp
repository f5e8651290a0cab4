// Bilateral guided upsampling (Chen et al. 2016): an operator's low-resolution result is
// approximated by a bilateral grid of 3x4 affine color models fitted by regularized least squares
// (low-res input -> low-res output), and the grid is sliced at full resolution with the full-res
// input as guide, then each pixel's model is applied to its own color.
#include "Halide.h"

namespace {

using namespace Halide;

Var x{"x"}, y{"y"}, z{"z"}, c{"c"};

constexpr int kFeatures = 4;                  // r, g, b, 1
constexpr int kTargets = 3;                   // r', g', b'
constexpr int kNormalEntries = 10;            // upper triangle of the 4x4 Gram matrix
constexpr int kGridChannels = kNormalEntries + kFeatures * kTargets;  // + the 4x3 right-hand side

// Index of Gram-matrix entry (i, j), i <= j, in the packed upper triangle.
int packed(int i, int j) {
    if (i > j) std::swap(i, j);
    return i * kFeatures - i * (i - 1) / 2 + (j - i);
}

Expr luma(Expr r, Expr g, Expr b) { return 0.299f * r + 0.587f * g + 0.114f * b; }

// Splat by gathering: grid cell (x, y) covers the s x s low-res pixels centred on (x*s, y*s); a
// pixel with luma bin position p adds its normal-equation terms with weight max(0, 1 - |p - z|)
// (a tent in z). Pixels outside the image contribute nothing.
Func splat_normal_equations(Func in, Func out, Expr lw, Expr lh, int s, int bins, RDom &r) {
    Func splat("splat");
    r = RDom(0, s, 0, s, "r");
    Expr xl = x * s + r.x - s / 2, yl = y * s + r.y - s / 2;
    Expr inside = xl >= 0 && xl < lw && yl >= 0 && yl < lh;
    Expr xc = clamp(xl, 0, lw - 1), yc = clamp(yl, 0, lh - 1);
    std::vector<Expr> f = {in(xc, yc, 0), in(xc, yc, 1), in(xc, yc, 2), 1.0f};
    std::vector<Expr> t = {out(xc, yc, 0), out(xc, yc, 1), out(xc, yc, 2)};
    Expr pos = clamp(luma(f[0], f[1], f[2]), 0.0f, 1.0f) * (bins - 1);
    Expr w = select(inside, max(0.0f, 1.0f - abs(pos - cast<float>(z))), 0.0f);
    std::vector<Expr> terms(kGridChannels);
    for (int i = 0; i < kFeatures; i++)
        for (int j = i; j < kFeatures; j++) terms[packed(i, j)] = f[i] * f[j];
    for (int i = 0; i < kFeatures; i++)
        for (int j = 0; j < kTargets; j++) terms[kNormalEntries + i * kTargets + j] = f[i] * t[j];
    splat(x, y, z, c) = 0.0f;
    splat(x, y, z, c) += w * mux(c, terms);
    return splat;
}

// [1 2 1] / 4 along one of the grid's axes.
Func blur3(Func f, int axis, const std::string &name) {
    Func b(name);
    std::vector<Expr> lo = {x, y, z, c}, hi = {x, y, z, c};
    Var v = axis == 0 ? x : axis == 1 ? y : z;
    lo[axis] = v - 1;
    hi[axis] = v + 1;
    b(x, y, z, c) = 0.25f * f(lo) + 0.5f * f(x, y, z, c) + 0.25f * f(hi);
    return b;
}

// Per cell: solve (G + lambda I) X = R + lambda M0 for the 4x3 affine model X by Cholesky, where
// G/R are the blurred normal equations and M0 the identity color transform. The result is a
// 12-tuple, element j*4+i = coefficient of feature i in output channel j.
Func fit_affine_models(Func grid, Expr lambda) {
    Func fit("affine_models");
    Expr A[kFeatures][kFeatures], B[kFeatures][kTargets];
    for (int i = 0; i < kFeatures; i++) {
        for (int j = 0; j < kFeatures; j++)
            A[i][j] = grid(x, y, z, packed(i, j)) + (i == j ? lambda : Expr(0.0f));
        for (int j = 0; j < kTargets; j++)
            B[i][j] = grid(x, y, z, kNormalEntries + i * kTargets + j) + (i == j ? lambda : Expr(0.0f));
    }
    // A = L L^T.
    Expr L[kFeatures][kFeatures], inv_diag[kFeatures];
    for (int j = 0; j < kFeatures; j++) {
        Expr d = A[j][j];
        for (int k = 0; k < j; k++) d -= L[j][k] * L[j][k];
        L[j][j] = sqrt(d);
        inv_diag[j] = 1.0f / L[j][j];
        for (int i = j + 1; i < kFeatures; i++) {
            Expr e = A[i][j];
            for (int k = 0; k < j; k++) e -= L[i][k] * L[j][k];
            L[i][j] = e * inv_diag[j];
        }
    }
    std::vector<Expr> coeffs(kFeatures * kTargets);
    for (int t = 0; t < kTargets; t++) {
        Expr u[kFeatures], X[kFeatures];
        for (int i = 0; i < kFeatures; i++) {  // L u = b
            Expr e = B[i][t];
            for (int k = 0; k < i; k++) e -= L[i][k] * u[k];
            u[i] = e * inv_diag[i];
        }
        for (int i = kFeatures - 1; i >= 0; i--) {  // L^T X = u
            Expr e = u[i];
            for (int k = i + 1; k < kFeatures; k++) e -= L[k][i] * X[k];
            X[i] = e * inv_diag[i];
        }
        for (int i = 0; i < kFeatures; i++) coeffs[t * kFeatures + i] = X[i];
    }
    fit(x, y, z) = Tuple(coeffs);
    return fit;
}

class BilateralGuidedUpsample : public Generator<BilateralGuidedUpsample> {
public:
    GeneratorParam<std::string> schedule_kind{"schedule", "none"};  // "none" (autoscheduler fills in) or "manual"
    GeneratorParam<int> grid_step{"grid_step", 8};  // grid cell size in low-res pixels
    GeneratorParam<int> grid_bins{"grid_bins", 8};  // luma bins

    Input<Buffer<float, 3>> lowres_input{"lowres_input"};    // (x, y, rgb)
    Input<Buffer<float, 3>> lowres_output{"lowres_output"};  // the operator applied to lowres_input
    Input<Buffer<float, 3>> highres_input{"highres_input"};  // (x, y, rgb), the guide
    Input<float> lambda{"lambda", 0.01f, 0.0f, 100.0f};     // regularization toward identity
    Output<Buffer<float, 3>> output{"output"};               // (x, y, rgb), full resolution

    void generate() {
        const int s = grid_step, bins = grid_bins;
        Expr lw = lowres_input.dim(0).extent(), lh = lowres_input.dim(1).extent();
        Expr W = highres_input.dim(0).extent(), H = highres_input.dim(1).extent();

        RDom r;
        Func splat = splat_normal_equations(lowres_input, lowres_output, lw, lh, s, bins, r);
        Func grid("grid");
        grid(x, y, z, c) = splat(x, y, z, c);
        Func blurz = blur3(grid, 2, "blurz");
        Func blurx = blur3(blurz, 0, "blurx");
        Func blury = blur3(blurx, 1, "blury");
        Func affine = fit_affine_models(blury, lambda);

        // Slice: full-res pixel centre -> low-res coordinate -> grid coordinate (clamped to the
        // cells that hold pixels); z from the guide's luma. Trilinear weights per coefficient.
        Expr last_cx = (lw - 1 + s / 2) / s, last_cy = (lh - 1 + s / 2) / s;
        Expr gx = clamp(((cast<float>(x) + 0.5f) * (cast<float>(lw) / cast<float>(W)) - 0.5f) / s, 0.0f,
                        cast<float>(last_cx));
        Expr gy = clamp(((cast<float>(y) + 0.5f) * (cast<float>(lh) / cast<float>(H)) - 0.5f) / s, 0.0f,
                        cast<float>(last_cy));
        Expr gz = clamp(luma(highres_input(x, y, 0), highres_input(x, y, 1), highres_input(x, y, 2)), 0.0f, 1.0f) *
                  (bins - 1);
        Expr x0 = cast<int>(floor(gx)), y0 = cast<int>(floor(gy)), z0 = min(cast<int>(floor(gz)), bins - 2);
        Expr fx = gx - x0, fy = gy - y0, fz = gz - z0;
        std::vector<Expr> sliced(kFeatures * kTargets);
        for (int k = 0; k < kFeatures * kTargets; k++) {
            auto at = [&](int dx, int dy, int dz) { return affine(x0 + dx, y0 + dy, z0 + dz)[k]; };
            sliced[k] = lerp(lerp(lerp(at(0, 0, 0), at(1, 0, 0), fx), lerp(at(0, 1, 0), at(1, 1, 0), fx), fy),
                             lerp(lerp(at(0, 0, 1), at(1, 0, 1), fx), lerp(at(0, 1, 1), at(1, 1, 1), fx), fy), fz);
        }
        Func models("sliced_models");
        models(x, y) = Tuple(sliced);

        // Apply each pixel's model to its own color.
        std::vector<Expr> rows(kTargets);
        for (int t = 0; t < kTargets; t++) {
            Expr e = models(x, y)[t * kFeatures + 3];
            for (int i = 0; i < 3; i++) e += models(x, y)[t * kFeatures + i] * highres_input(x, y, i);
            rows[t] = e;
        }
        output(x, y, c) = mux(c, rows);

        if (schedule_kind.value() == "manual") {
            Var xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
            // Kernel 1: the splat. One thread per (cell, bin) keeps its 22 sums in registers
            // while it walks the cell's s x s pixels (no atomics: it is a gather).
            grid.compute_root()
                .bound(c, 0, kGridChannels)
                .reorder(c, x, y, z)
                .unroll(c)
                .tile(x, y, xo, yo, xi, yi, 8, 8, TailStrategy::GuardWithIf)
                .gpu_blocks(xo, yo, z)
                .gpu_threads(xi, yi);
            splat.compute_at(grid, xi).unroll(c);
            splat.update().reorder(c, r.x, r.y).unroll(c);
            // Kernel 2: blur + fit. One block per 8x8 cells of one bin: blurz and blurx (with
            // their 1-cell halos, all 22 channels) are staged in shared memory; each thread blurs
            // its own cell in y into registers and solves its 4x4 system.
            affine.compute_root()
                .tile(x, y, xo, yo, xi, yi, 8, 8, TailStrategy::GuardWithIf)
                .gpu_blocks(xo, yo, z)
                .gpu_threads(xi, yi);
            blury.compute_at(affine, xi).unroll(c);
            blurx.compute_at(affine, xo).reorder(c, x, y, z).gpu_threads(x, y);
            blurz.compute_at(affine, xo).reorder(c, x, y, z).gpu_threads(x, y);
            // Kernel 3: slicing, one thread per full-res pixel, 32-wide rows for coalescing; the
            // 12 interpolated coefficients stay in registers and the 3 channels are unrolled.
            output.bound(c, 0, kTargets)
                .reorder(c, x, y)
                .unroll(c)
                .gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
            models.compute_at(output, xi);
        }
    }

    void schedule() {
        // A 1920x1080 RGB frame guided by itself, with the operator run at 1/8 resolution.
        lowres_input.set_estimates({{0, 240}, {0, 135}, {0, 3}});
        lowres_output.set_estimates({{0, 240}, {0, 135}, {0, 3}});
        highres_input.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
        lambda.set_estimate(0.01f);
        output.set_estimates({{0, 1920}, {0, 1080}, {0, 3}});
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BilateralGuidedUpsample, bgu)
