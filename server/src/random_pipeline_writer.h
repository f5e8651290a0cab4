// The random pipeline writer: its state and its steps. Internal to random_pipeline.cpp (the
// DAG, producers, arithmetic, the file) and random_pipeline_steps.cpp (one method per kind of
// stage). Single-threaded: one writer writes one file.
//
// How it works: a list of Nodes (the inputs, then one Func per step) grows one step at a time.
// Each step picks a kind (pointwise, stencil, resampling, reduction, histogram, lookup...),
// picks producers among the nodes so far (inputs nothing reads yet first, then usually nodes
// nothing reads yet, else recent ones), and writes the Func's definition as C++ text. Every
// node knows its logical domain ([0, extent) per dim); consumers read producers inside it, or
// rescale coordinates (nearest neighbour) when the shapes differ, so required regions stay
// about the size of the data however the DAG is wired. Nodes nothing reads at the end become
// the outputs. A few obligations keep the DAG tidy: a scalar is read by the very next step,
// inputs are all read by the end, and many unread nodes get merged by a pointwise step.
//
// Each write names the rule that keeps it valid (in bounds, no division by zero, types
// matching).
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "random_pipeline.h"
#include "random_pipeline_model.h"

namespace hlsched::server::random_pipeline {

// Largest Func, in points (8K x 4K x 4 channels); resampling and channel steps stay below it.
constexpr int64_t kMaxPoints = int64_t(1) << 27;
// Largest extent of an image dimension.
constexpr int64_t kMaxExtent = 8192;
// Reductions into one value or one histogram run serially on the GPU (the simple scheduler
// gives them one thread): keep those small.
constexpr int64_t kMaxSerialPoints = int64_t(1) << 22;

/// One stencil tap: offset and integer weight.
struct Tap {
  int dx, dy, weight;
};

class PipelineWriter {
public:
  explicit PipelineWriter(const RandomPipelineOptions &options) : options_(options), rng_(options.seed) {}

  /// The whole generator source.
  std::string write();

private:
  using Filter = std::function<bool(const Node &)>;

  // Sizes, types and inputs.
  void choose_base_size();
  Elem random_image_type();
  /// Within kMaxPoints; a `layer` (a channel mix of writer version 2) has 8-32 more often.
  int64_t random_channels(int64_t w, int64_t h, bool layer = false);
  static Shape image_shape(int64_t w, int64_t h, int64_t channels) {
    Shape s = {{Role::X, w}, {Role::Y, h}};
    if (channels > 0) s.push_back({Role::C, channels});
    return s;
  }
  void add_inputs();
  void input_boundary_condition(Node &in);

  // Choosing producers.
  static bool is_image(const Node &n) { return kind_of(n.shape) == ShapeKind::Image; }
  static bool is_image_2d(const Node &n) { return is_image(n) && n.shape.size() == 2; }
  static bool is_table(const Node &n) { return kind_of(n.shape) == ShapeKind::Table; }
  static bool is_dense(const Node &n) { return is_image(n) || kind_of(n.shape) == ShapeKind::Profile; }
  std::optional<size_t> pick(const Filter &ok, const std::vector<size_t> &exclude = {});
  std::vector<size_t> unread_nodes(bool inputs) const;

  // Writing a Func.
  Node &define(const std::string &stem, Elem type, Shape shape, const std::string &summary,
               const std::vector<size_t> &producers);
  std::string read(const Node &p, const Shape &at, const std::string &index = "") const;
  static std::string offset_args(const Shape &shape, const std::string &dx, const std::string &dy);
  static std::string rvar(size_t d, size_t count);
  std::string convert(Elem to, Elem from, const std::string &e);
  static Elem working_type(const std::vector<Elem> &types);
  Elem result_type(Elem keep);
  std::string index_of(const std::string &value, Elem type, int64_t size);

  // Random arithmetic.
  std::string constant(bool fl, const std::vector<double> &floats, const std::vector<int> &ints);
  std::string unary(const std::string &a, bool fl);
  std::string binary(const std::string &a, const std::string &b, bool fl);
  std::string combine(std::vector<std::string> leaves, bool fl);

  // The steps (random_pipeline_steps.cpp). Each returns false when the DAG so far has nothing
  // it applies to (then another kind is drawn); pointwise always applies.
  enum class StepKind { Pointwise, Stencil, Downsample, Upsample, Transpose, Reduce, Scan, Histogram, MakeTable,
                        Lookup, Warp, ChannelMix, MatMul };
  void add_step();
  void pointwise(const std::vector<size_t> &must_read);
  std::vector<Tap> stencil_taps(std::string &shape_name, bool &signed_weights, bool &flat);
  static std::string tap_sum(const std::vector<Tap> &taps);
  bool stencil();
  bool downsample();
  bool upsample();
  bool transpose();
  bool reduce();
  bool scan();
  bool histogram();
  bool make_table();
  bool lookup();
  bool warp();
  bool channel_mix();
  bool matmul();

  // The file.
  std::string source() const;

  RandomPipelineOptions options_;
  Rng rng_;
  std::deque<Node> nodes_;  ///< a deque: references to nodes stay valid as steps add more
  int step_ = 0;            ///< 1-based, the suffix of the step's Func name
  std::pair<int64_t, int64_t> base_;  ///< the first input's width and height
  bool uses_index_of_ = false;        ///< emit the index_of() helper
};

}  // namespace hlsched::server::random_pipeline
