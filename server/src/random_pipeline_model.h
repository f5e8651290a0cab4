// The vocabulary of the random pipeline writer (random_pipeline.cpp): portable randomness,
// element types, shapes, and the nodes of the DAG being written. Internal to the writer.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace hlsched::server::random_pipeline {

/// Randomness that is the same on every platform: std::mt19937_64 is specified bit for bit by
/// the standard, std::uniform_int_distribution is not, so the mappings are our own.
class Rng {
public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  /// Uniform in [lo, hi]. A plain modulo: for spans this small its bias is below 2^-40.
  int64_t between(int64_t lo, int64_t hi) {
    const uint64_t span = uint64_t(hi - lo) + 1;
    return lo + int64_t(engine_() % span);
  }
  bool percent(int p) { return between(0, 99) < p; }
  template <typename T>
  const T &pick(const std::vector<T> &options) {
    return options[size_t(between(0, int64_t(options.size()) - 1))];
  }
  /// An index drawn with the given weights (non-negative, not all zero).
  size_t weighted(const std::vector<int> &weights) {
    int64_t total = 0;
    for (int w : weights) total += w;
    int64_t ticket = between(0, total - 1);
    for (size_t i = 0; i < weights.size(); i++) {
      if (ticket < weights[i]) return i;
      ticket -= weights[i];
    }
    return weights.size() - 1;
  }

private:
  std::mt19937_64 engine_;
};

/// Element types of Funcs and buffers.
enum class Elem { U8, U16, I16, I32, F32, F64 };

const char *cpp_type(Elem e);    ///< "uint8_t"
const char *short_name(Elem e);  ///< "u8"
bool is_float(Elem e);

/// What a dimension means: image columns, rows, channels, or the index of a table.
/// Each role has one Var in the generated code (x, y, c, i).
enum class Role { X, Y, C, I };

const char *var_name(Role r);

struct Dim {
  Role role;
  int64_t extent;  ///< the Func's meaningful domain is [0, extent)
};

/// Dims in order. The kinds of shapes the writer makes:
///   image   {X, Y} or {X, Y, C}
///   profile {X} or {Y}          (a reduction of an image along the other axis)
///   table   {I} or {I, Y}       (histograms, lookup tables; read through clamped indices)
///   scalar  {}                  (a total)
using Shape = std::vector<Dim>;

enum class ShapeKind { Image, Profile, Table, Scalar };

ShapeKind kind_of(const Shape &shape);
int64_t points_of(const Shape &shape);
const Dim *find_role(const Shape &shape, Role role);
std::string args_text(const Shape &shape);    ///< "x, y, c"
std::string region_text(const Shape &shape);  ///< "{{0, 1920}, {0, 1080}}"
std::string extent_text(const Shape &shape);  ///< "1920x1080", "256 bins", "scalar"

// Text of the generated code.
std::string str(int64_t v);
/// A float literal ("0.25f"): %.9g of values we choose (integer ratios), so the same everywhere.
std::string float_literal(double v);
/// `cast<to>(e)`, or `e` when the types are the same.
std::string cast_to(Elem to, Elem from, const std::string &e);
/// Coordinate `v` of a domain of `from` points rescaled to one of `to` (nearest neighbour):
/// [0, from) maps into [0, to).
std::string rescaled(const std::string &v, int64_t from, int64_t to);

/// A Func (or an input) of the pipeline being written.
struct Node {
  std::string name;    ///< the Func's (or the Input's) name in the generated code
  std::string reader;  ///< what consumers call: the Func, or an input's boundary condition
  Elem type = Elem::F32;
  Shape shape;
  bool is_input = false;
  int uses = 0;                    ///< steps that read it so far
  std::string summary;             ///< one line for the file's header comment
  std::vector<std::string> lines;  ///< its definition in generate(), after `Func name("name");`
};

}  // namespace hlsched::server::random_pipeline
