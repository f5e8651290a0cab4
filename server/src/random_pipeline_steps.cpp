// The kinds of stages of random pipelines, one method each: pointwise arithmetic, stencils,
// down- and up-sampling, transposes, reductions, scans, histograms, lookup tables, lookups,
// warps, channel mixes and matrix products. Each writes one Func's definition as C++ text and
// says in comments what keeps it valid.
#include <algorithm>
#include <cstdlib>

#include "random_pipeline_writer.h"

namespace hlsched::server::random_pipeline {

namespace {

// A row of binomial weights (1 2 1, 1 4 6 4 1, ...) for radius r.
std::vector<int> binomial_row(int r) {
  std::vector<int> row = {1};
  for (int k = 0; k < 2 * r; k++) {
    std::vector<int> next(row.size() + 1, 0);
    for (size_t j = 0; j < row.size(); j++) next[j] += row[j], next[j + 1] += row[j];
    row = next;
  }
  return row;
}

}  // namespace

// Arithmetic of 1-4 operands of mixed types (images at other sizes are rescaled, profiles
// and scalars broadcast, tables looked up by the first operand's value), computed in one
// working type and converted to the result type. `must_read` are operands it has to take.
void PipelineWriter::pointwise(const std::vector<size_t> &must_read) {
  std::optional<size_t> primary;
  for (size_t m : must_read)
    if (is_dense(nodes_[m])) {
      primary = m;
      break;
    }
  if (!primary) primary = pick(is_dense);  // input 0 is an image: there is always one
  std::vector<size_t> operands = {*primary};
  for (size_t m : must_read)
    if (m != *primary && operands.size() < 4) operands.push_back(m);
  if (must_read.empty()) {
    const int64_t more = rng_.between(0, 2);
    for (int64_t k = 0; k < more; k++)
      if (auto o = pick([](const Node &) { return true; }, operands)) operands.push_back(*o);
  }

  const Node &p = nodes_[*primary];
  std::vector<Elem> types;
  std::string names;
  for (size_t o : operands) {
    types.push_back(nodes_[o].type);
    names += (names.empty() ? "" : ", ") + nodes_[o].name;
  }
  const Elem work = working_type(types);
  const Elem out = result_type(p.type);
  Node &n = define("mix", out, p.shape, "pointwise " + std::string(short_name(work)) + " arithmetic of " + names,
                   operands);

  n.lines.push_back("{");
  std::vector<std::string> leaves;
  for (size_t k = 0; k < operands.size(); k++) {
    const Node &o = nodes_[operands[k]];
    // a, b, d, e: c and i are the generator's Vars.
    const std::string letter(1, "abde"[k]);
    std::string value;
    if (is_table(o)) value = read(o, n.shape, index_of("a", p.type, o.shape[0].extent));
    else value = read(o, n.shape);
    n.lines.push_back("    Expr " + letter + " = " + value + ";");
    leaves.push_back(cast_to(work, o.type, letter));
  }
  if (rng_.percent(12)) {
    // A term of the coordinates (gradients, stripes).
    std::string coordinate = var_name(n.shape[0].role);
    leaves.push_back(is_float(work) ? "cast<float>(" + coordinate + ") * 0.0625f" : "(" + coordinate + " % 16)");
  }
  const std::string value = combine(leaves, is_float(work));
  n.lines.push_back("    " + n.name + "(" + args_text(n.shape) + ") = " + convert(out, work, value) + ";");
  n.lines.push_back("}");
}

// Stencil taps of one of the usual shapes. `signed_weights` is set for derivatives (their
// weights sum to zero: no normalization).
std::vector<Tap> PipelineWriter::stencil_taps(std::string &shape_name, bool &signed_weights, bool &flat) {
  std::vector<Tap> taps;
  signed_weights = false;
  flat = false;
  switch (rng_.weighted({30, 20, 10, 8, 12, 12})) {
    case 0: {  // box, flat or binomial (Gaussian-like)
      int rx = int(rng_.between(0, 3)), ry = int(rng_.between(rx == 0 ? 1 : 0, 3));
      flat = rx > 2 || ry > 2 || rng_.percent(50);
      std::vector<int> wx = binomial_row(rx), wy = binomial_row(ry);
      for (int dy = -ry; dy <= ry; dy++)
        for (int dx = -rx; dx <= rx; dx++) taps.push_back({dx, dy, flat ? 1 : wx[dx + rx] * wy[dy + ry]});
      shape_name = str(2 * rx + 1) + "x" + str(2 * ry + 1) + (flat ? " box" : " Gaussian");
      break;
    }
    case 1: {  // a line along x or y
      const bool along_x = rng_.percent(50);
      int r = int(rng_.between(1, 4));
      std::vector<int> w = binomial_row(r);
      for (int d = -r; d <= r; d++) taps.push_back({along_x ? d : 0, along_x ? 0 : d, w[d + r]});
      shape_name = str(2 * r + 1) + "-tap " + (along_x ? "horizontal" : "vertical") + " binomial";
      break;
    }
    case 2: {  // cross
      int r = int(rng_.between(1, 3));
      for (int d = -r; d <= r; d++) taps.push_back({d, 0, d == 0 ? 2 : 1});
      for (int d = -r; d <= r; d++)
        if (d != 0) taps.push_back({0, d, 1});
      shape_name = "cross of radius " + str(r);
      break;
    }
    case 3: {  // diamond
      int r = int(rng_.between(1, 2));
      for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++)
          if (std::abs(dx) + std::abs(dy) <= r) taps.push_back({dx, dy, 1});
      shape_name = "diamond of radius " + str(r);
      break;
    }
    case 4: {  // sparse random taps
      int count = int(rng_.between(3, 7));
      while (int(taps.size()) < count) {
        Tap t{int(rng_.between(-3, 3)), int(rng_.between(-3, 3)), int(rng_.between(1, 3))};
        bool seen = false;
        for (const Tap &u : taps) seen = seen || (u.dx == t.dx && u.dy == t.dy);
        if (!seen) taps.push_back(t);
      }
      shape_name = str(count) + " scattered taps";
      break;
    }
    default: {  // derivatives
      signed_weights = true;
      switch (rng_.between(0, 3)) {
        case 0:
          taps = {{-1, -1, -1}, {1, -1, 1}, {-1, 0, -2}, {1, 0, 2}, {-1, 1, -1}, {1, 1, 1}};
          shape_name = "Sobel x";
          break;
        case 1:
          taps = {{-1, -1, -1}, {0, -1, -2}, {1, -1, -1}, {-1, 1, 1}, {0, 1, 2}, {1, 1, 1}};
          shape_name = "Sobel y";
          break;
        case 2:
          taps = {{0, -1, -1}, {-1, 0, -1}, {0, 0, 4}, {1, 0, -1}, {0, 1, -1}};
          shape_name = "Laplacian";
          break;
        default:
          taps = {{-1, 0, -1}, {1, 0, 1}};
          shape_name = "central difference";
          break;
      }
    }
  }
  return taps;
}

// A weighted sum of taps as text: "tap(-1, 0) + 2 * tap(0, 0) - tap(1, 0)".
std::string PipelineWriter::tap_sum(const std::vector<Tap> &taps) {
  std::string out;
  for (const Tap &t : taps) {
    const std::string call = "tap(" + str(t.dx) + ", " + str(t.dy) + ")";
    const int w = std::abs(t.weight);
    const std::string term = w == 1 ? call : str(w) + " * " + call;
    if (out.empty()) out = t.weight < 0 ? "-" + term : term;
    else out += (t.weight < 0 ? " - " : " + ") + term;
  }
  return out;
}

bool PipelineWriter::stencil() {
  auto src_index = pick(is_image);
  if (!src_index) return false;
  const Node &src = nodes_[*src_index];
  std::string shape_name;
  bool signed_weights = false, flat = false;
  std::vector<Tap> taps = stencil_taps(shape_name, signed_weights, flat);
  const bool morphology = !signed_weights && rng_.percent(20);
  const bool box = flat && !signed_weights && taps.size() > 1;
  // RDoms for flat boxes (as an update definition or an inline reduction); explicit taps
  // otherwise, and always when there are few.
  enum { Explicit, UpdateDefinition, InlineReduction } style = Explicit;
  if (box && (taps.size() > 15 || rng_.percent(45))) style = rng_.percent(55) ? UpdateDefinition : InlineReduction;

  const Elem work = working_type({src.type});
  Elem out;
  if (morphology) out = src.type;
  else if (signed_weights) out = is_float(work) ? Elem::F32 : rng_.pick(std::vector<Elem>{Elem::I16, Elem::I32});
  else if (style != Explicit) out = work;
  else out = result_type(src.type);

  const std::string what =
      std::string(morphology ? (rng_.percent(50) ? "dilation" : "erosion") : "stencil") + " (" + shape_name + ")";
  const std::string stem = morphology ? (what[0] == 'd' ? "dilate" : "erode")
                           : signed_weights ? "edges"
                           : box ? "box" : "blur";
  const Shape shape = src.shape;
  std::string source = src.reader;
  std::vector<std::string> prelude;
  if (!src.is_input && rng_.percent(30)) {
    // A boundary condition on the producer's domain: the stencil never reads outside it.
    const bool interior_ok = shape[0].extent >= 2 && shape[1].extent >= 2;
    const std::string kind = rng_.pick(std::vector<std::string>{
        "repeat_edge", "mirror_image", interior_ok ? "mirror_interior" : "repeat_edge", "constant_exterior"});
    source = src.name + "_bounded";
    const std::string region = "{{0, " + str(shape[0].extent) + "}, {0, " + str(shape[1].extent) + "}}";
    const std::string value = kind == "constant_exterior" ? ", cast<" + std::string(cpp_type(src.type)) + ">(0)" : "";
    prelude.push_back("    Func " + source + " = BoundaryConditions::" + kind + "(" + src.name + value + ", " +
                      region + ");");
  }
  Node &n = define(stem, out, shape, what + " of " + src.name, {*src_index});
  const std::string args = args_text(shape);
  const std::string lhs = n.name + "(" + args + ")";
  const bool fl = is_float(work);
  int weight_sum = 0;
  for (const Tap &t : taps) weight_sum += t.weight;

  n.lines.push_back("{");
  n.lines.insert(n.lines.end(), prelude.begin(), prelude.end());
  if (style == Explicit) {
    const std::string tap_value = source + "(" + offset_args(shape, "x + dx", "y + dy") + ")";
    n.lines.push_back("    auto tap = [&](int dx, int dy) { return " +
                      (morphology ? tap_value : cast_to(work, src.type, tap_value)) + "; };");
    std::string value;
    if (morphology) {
      const char *op = what[0] == 'd' ? "max" : "min";
      value = "tap(" + str(taps[0].dx) + ", " + str(taps[0].dy) + ")";
      for (size_t k = 1; k < taps.size(); k++)
        value = std::string(op) + "(" + value + ", tap(" + str(taps[k].dx) + ", " + str(taps[k].dy) + "))";
    } else {
      value = tap_sum(taps);
      // Normalized by the weight sum, a positive constant (derivatives sum to zero: left as is).
      if (!signed_weights && weight_sum > 1)
        value = fl ? "(" + value + ") / " + float_literal(weight_sum)
                   : "(" + value + " + " + str(weight_sum / 2) + ") / " + str(weight_sum);
      value = convert(out, work, value);
    }
    n.lines.push_back("    " + lhs + " = " + value + ";");
  } else {
    const int rx = -taps.front().dx, ry = -taps.front().dy;
    n.lines.push_back("    RDom r(" + str(-rx) + ", " + str(2 * rx + 1) + ", " + str(-ry) + ", " + str(2 * ry + 1) +
                      ", \"r_" + n.name + "\");");
    const std::string tap_value = source + "(" + offset_args(shape, "x + r.x", "y + r.y") + ")";
    const std::string centre = source + "(" + args + ")";
    const char *op = what[0] == 'd' ? "max" : "min";
    if (style == UpdateDefinition && morphology) {
      n.lines.push_back("    " + lhs + " = " + centre + ";");
      n.lines.push_back("    " + lhs + " = " + op + "(" + lhs + ", " + tap_value + ");");
    } else if (style == UpdateDefinition) {
      n.lines.push_back("    " + lhs + " = " + (fl ? "0.0f" : "0") + ";");
      n.lines.push_back("    " + lhs + " += " + cast_to(work, src.type, tap_value) + ";");
      if (rng_.percent(50))  // a second update: the mean
        n.lines.push_back("    " + lhs + " = " + lhs + " / " + (fl ? float_literal(weight_sum) : str(weight_sum)) + ";");
    } else if (morphology) {
      n.lines.push_back("    " + lhs + " = " + (op[1] == 'a' ? "maximum(" : "minimum(") + tap_value + ", \"" + n.name +
                        "_" + (op[1] == 'a' ? "max" : "min") + "\");");
    } else {
      n.lines.push_back("    " + lhs + " = sum(" + cast_to(work, src.type, tap_value) + ", \"" + n.name + "_sum\") / " +
                        (fl ? float_literal(weight_sum) : str(weight_sum)) + ";");
    }
  }
  n.lines.push_back("}");
  return true;
}

bool PipelineWriter::downsample() {
  auto src_index = pick(is_image);
  if (!src_index) return false;
  const Node &src = nodes_[*src_index];
  const int64_t fx = rng_.between(1, 4), fy = rng_.between(fx == 1 ? 2 : 1, 4);
  Shape shape = src.shape;
  shape[0].extent = (shape[0].extent + fx - 1) / fx;
  shape[1].extent = (shape[1].extent + fy - 1) / fy;
  const Elem work = working_type({src.type});
  const int style = int(rng_.weighted({50, 30, fx == 2 && fy == 2 ? 20 : 0}));
  const Elem out = style == 1 ? src.type : result_type(src.type);
  const std::string factor = str(fx) + "x" + str(fy);
  const char *what[] = {"average of ", "subsampled ", "[1 3 3 1] filtered "};
  Node &n = define("down", out, shape, std::string(what[style]) + factor + " blocks of " + src.name, {*src_index});
  const std::string lhs = n.name + "(" + args_text(shape) + ")";
  const std::string sx = fx == 1 ? "x" : str(fx) + " * x", sy = fy == 1 ? "y" : str(fy) + " * y";
  if (style == 1) {
    n.lines.push_back(lhs + " = " + src.reader + "(" + offset_args(shape, sx, sy) + ");");
    return true;
  }
  n.lines.push_back("{");
  const std::string tap_value = src.reader + "(" + offset_args(shape, sx + " + dx", sy + " + dy") + ")";
  n.lines.push_back("    auto tap = [&](int dx, int dy) { return " + cast_to(work, src.type, tap_value) + "; };");
  std::vector<Tap> taps;
  if (style == 0) {
    for (int dy = 0; dy < fy; dy++)
      for (int dx = 0; dx < fx; dx++) taps.push_back({dx, dy, 1});
  } else {
    const int w[] = {1, 3, 3, 1};
    for (int dy = -1; dy <= 2; dy++)
      for (int dx = -1; dx <= 2; dx++) taps.push_back({dx, dy, w[dx + 1] * w[dy + 1]});
  }
  int weight_sum = 0;
  for (const Tap &t : taps) weight_sum += t.weight;
  const std::string value = is_float(work) ? "(" + tap_sum(taps) + ") / " + float_literal(weight_sum)
                                           : "(" + tap_sum(taps) + " + " + str(weight_sum / 2) + ") / " + str(weight_sum);
  n.lines.push_back("    " + lhs + " = " + convert(out, work, value) + ";");
  n.lines.push_back("}");
  return true;
}

bool PipelineWriter::upsample() {
  auto src_index = pick(is_image);
  if (!src_index) return false;
  const Node &src = nodes_[*src_index];
  const bool linear = rng_.percent(50);
  const int64_t fx = linear ? 2 : rng_.between(1, 4), fy = linear ? 2 : rng_.between(fx == 1 ? 2 : 1, 4);
  Shape shape = src.shape;
  shape[0].extent *= fx;
  shape[1].extent *= fy;
  if (shape[0].extent > kMaxExtent || shape[1].extent > kMaxExtent || points_of(shape) > kMaxPoints) return false;
  const Elem work = working_type({src.type});
  const Elem out = linear ? result_type(src.type) : src.type;
  Node &n = define("up", out, shape,
                   std::string(linear ? "bilinear" : "nearest-neighbour") + " " + str(fx) + "x" + str(fy) +
                       " upsampling of " + src.name,
                   {*src_index});
  const std::string lhs = n.name + "(" + args_text(shape) + ")";
  const std::string sx = fx == 1 ? "x" : "x / " + str(fx), sy = fy == 1 ? "y" : "y / " + str(fy);
  if (!linear) {
    n.lines.push_back(lhs + " = " + src.reader + "(" + offset_args(shape, sx, sy) + ");");
    return true;
  }
  // Weights 9 3 3 1 towards the nearer neighbours: the classic 2x bilinear upsampling.
  n.lines.push_back("{");
  n.lines.push_back("    Expr nx = 2 * (x % 2) - 1, ny = 2 * (y % 2) - 1;  // side of the nearer neighbour");
  const std::string tap_value = src.reader + "(" + offset_args(shape, "x / 2 + dx", "y / 2 + dy") + ")";
  n.lines.push_back("    auto tap = [&](Expr dx, Expr dy) { return " + cast_to(work, src.type, tap_value) + "; };");
  const std::string sum = "9 * tap(0, 0) + 3 * tap(nx, 0) + 3 * tap(0, ny) + tap(nx, ny)";
  const std::string value = is_float(work) ? "(" + sum + ") / 16.0f" : "(" + sum + " + 8) / 16";
  n.lines.push_back("    " + lhs + " = " + convert(out, work, value) + ";");
  n.lines.push_back("}");
  return true;
}

bool PipelineWriter::transpose() {
  auto src_index = pick(is_image);
  if (!src_index) return false;
  const Node &src = nodes_[*src_index];
  const int64_t w = src.shape[0].extent, h = src.shape[1].extent;
  Shape shape = src.shape;
  std::string coords, stem, what;
  switch (rng_.between(0, 2)) {
    case 0:
      std::swap(shape[0].extent, shape[1].extent);
      coords = offset_args(shape, "y", "x");
      stem = "transpose";
      what = "transpose of ";
      break;
    case 1:
      coords = offset_args(shape, str(w - 1) + " - x", "y");  // x in [0, w): in the domain
      stem = "flip";
      what = "left-right flip of ";
      break;
    default:
      std::swap(shape[0].extent, shape[1].extent);
      coords = offset_args(shape, "y", str(h - 1) + " - x");
      stem = "rotate";
      what = "90 degree rotation of ";
      break;
  }
  const Elem out = result_type(src.type);
  Node &n = define(stem, out, shape, what + src.name, {*src_index});
  n.lines.push_back(n.name + "(" + args_text(shape) + ") = " + convert(out, src.type, src.reader + "(" + coords + ")") + ";");
  return true;
}

// Reductions over RDoms into a smaller Func: per-column or per-row profiles, channel
// reductions, totals. Sums, means, maxima or minima.
bool PipelineWriter::reduce() {
  auto src_index = pick(is_dense);
  if (!src_index) return false;
  const Node &src = nodes_[*src_index];
  // What is kept: the roles of the result.
  std::vector<std::vector<Role>> options;
  if (is_image(src)) {
    options.push_back({Role::X});
    options.push_back({Role::Y});
    if (src.shape.size() == 3) options.push_back({Role::X, Role::Y});
  }
  // A total is the only Func nothing can be left unread as (scalars are no outputs): never
  // on the last step.
  if (points_of(src.shape) <= kMaxSerialPoints && step_ < options_.stages) options.push_back({});
  if (options.empty()) return false;
  const std::vector<Role> kept = rng_.pick(options);
  Shape shape;
  std::vector<size_t> reduced_dims;
  for (size_t d = 0; d < src.shape.size(); d++) {
    if (std::count(kept.begin(), kept.end(), src.shape[d].role)) shape.push_back(src.shape[d]);
    else reduced_dims.push_back(d);
  }
  const int op = int(rng_.weighted({40, 20, 20, 20}));  // sum, mean, max, min
  const Elem work = working_type({src.type});
  const Elem out = op >= 2 ? src.type : work;
  static const char *op_names[] = {"sum", "mean", "maximum", "minimum"};
  static const char *stems[] = {"sum", "mean", "max", "min"};
  std::string what = std::string(op_names[op]) + " over ";
  for (size_t k = 0; k < reduced_dims.size(); k++)
    what += (k ? ", " : "") + std::string(var_name(src.shape[reduced_dims[k]].role));
  const std::string over = shape.empty()                              ? "total_"
                           : kept.size() == 2                          ? "channel_"
                           : kept[0] == Role::X                        ? "column_"
                                                                       : "row_";
  Node &n = define(over + stems[op],
                   out, shape, what + " of " + src.name, {*src_index});
  // The RDom covers the reduced dims of src's domain; kept dims read the result's own vars.
  int64_t count = 1;
  std::string rdom = "RDom r(";
  for (size_t k = 0; k < reduced_dims.size(); k++) {
    rdom += (k ? ", 0, " : "0, ") + str(src.shape[reduced_dims[k]].extent);
    count *= src.shape[reduced_dims[k]].extent;
  }
  rdom += ", \"r_" + n.name + "\");";
  auto src_at = [&](bool first_point) {
    std::string out_text = src.reader + "(";
    size_t k = 0;
    for (size_t d = 0; d < src.shape.size(); d++) {
      std::string coordinate;
      if (std::count(reduced_dims.begin(), reduced_dims.end(), d)) coordinate = first_point ? "0" : rvar(k++, reduced_dims.size());
      else coordinate = var_name(src.shape[d].role);
      out_text += (d ? ", " : "") + coordinate;
    }
    return out_text + ")";
  };
  const std::string lhs = n.name + "(" + args_text(shape) + ")";
  n.lines.push_back("{");
  n.lines.push_back("    " + rdom);
  if (op <= 1) {
    n.lines.push_back("    " + lhs + " = " + (is_float(work) ? "0.0f" : "0") + ";");
    n.lines.push_back("    " + lhs + " += " + cast_to(work, src.type, src_at(false)) + ";");
    if (op == 1)  // the mean: divided by the count, a positive constant
      n.lines.push_back("    " + lhs + " = " + lhs + " / " + (is_float(work) ? float_literal(double(count)) : str(count)) + ";");
  } else {
    n.lines.push_back("    " + lhs + " = " + src_at(true) + ";");
    n.lines.push_back("    " + lhs + " = " + (op == 2 ? "max(" : "min(") + lhs + ", " + src_at(false) + ");");
  }
  n.lines.push_back("}");
  return true;
}

// Prefix sums and first-order recursive filters along x or y of an image (an update over an
// RDom that reads its own previous result), or cumulative tables.
bool PipelineWriter::scan() {
  auto src_index = pick([](const Node &n) { return is_image(n) || (is_table(n) && n.shape[0].extent >= 2); });
  if (!src_index) return false;
  const Node &src = nodes_[*src_index];
  const Elem work = working_type({src.type});
  if (is_table(src)) {
    Node &n = define("cumulative", work, src.shape, "cumulative sum of " + src.name, {*src_index});
    const std::string rest = src.shape.size() > 1 ? ", y" : "";
    n.lines.push_back("{");
    n.lines.push_back("    RDom r(1, " + str(src.shape[0].extent - 1) + ", \"r_" + n.name + "\");");
    n.lines.push_back("    " + n.name + "(" + args_text(src.shape) + ") = " + cast_to(work, src.type, read(src, src.shape)) + ";");
    n.lines.push_back("    " + n.name + "(r" + rest + ") = " + n.name + "(r - 1" + rest + ") + " + n.name + "(r" + rest + ");");
    n.lines.push_back("}");
    return true;
  }
  const bool along_x = rng_.percent(50);
  const int64_t extent = src.shape[along_x ? 0 : 1].extent;
  if (extent < 2) return false;
  const bool recursive = rng_.percent(40);
  const Elem out = recursive ? Elem::F32 : work;
  Node &n = define(recursive ? "iir" : "prefix_sum", out, src.shape,
                   std::string(recursive ? "recursive filter" : "prefix sum") + " along " + (along_x ? "x" : "y") +
                       " of " + src.name,
                   {*src_index});
  const std::string here = offset_args(src.shape, along_x ? "r" : "x", along_x ? "y" : "r");
  const std::string before = offset_args(src.shape, along_x ? "r - 1" : "x", along_x ? "y" : "r - 1");
  n.lines.push_back("{");
  n.lines.push_back("    RDom r(1, " + str(extent - 1) + ", \"r_" + n.name + "\");");
  n.lines.push_back("    " + n.name + "(" + args_text(src.shape) + ") = " + cast_to(out, src.type, read(src, src.shape)) + ";");
  if (recursive) {
    const int64_t keep = rng_.between(1, 7);  // feedback keep/8
    n.lines.push_back("    " + n.name + "(" + here + ") = " + n.name + "(" + before + ") * " + float_literal(keep / 8.0) +
                      " + " + n.name + "(" + here + ") * " + float_literal((8 - keep) / 8.0) + ";");
  } else {
    n.lines.push_back("    " + n.name + "(" + here + ") = " + n.name + "(" + before + ") + " + n.name + "(" + here + ");");
  }
  n.lines.push_back("}");
  return true;
}

// Scatters: counts (or sums of values) into bins chosen by the data, over the whole domain
// when that is small enough for one GPU thread, else one histogram per row.
bool PipelineWriter::histogram() {
  auto src_index = pick(is_dense);
  if (!src_index) return false;
  const Node &src = nodes_[*src_index];
  const bool per_row = points_of(src.shape) > kMaxSerialPoints || (is_image(src) && rng_.percent(30));
  if (per_row && !is_image(src)) return false;
  const int64_t bins = rng_.pick(std::vector<int64_t>{16, 32, 64, 128, 256, 512, 1024});
  const bool weighted = rng_.percent(25);
  const Elem out = weighted ? Elem::F32 : Elem::I32;
  Shape shape = {{Role::I, bins}};
  if (per_row) shape.push_back(src.shape[1]);
  Node &n = define(per_row ? "row_hist" : "hist", out, shape,
                   std::string(weighted ? "value-weighted " : "") + str(bins) + "-bin histogram of " + src.name +
                       (per_row ? ", one per row" : ""),
                   {*src_index});
  std::vector<size_t> reduced;
  for (size_t d = 0; d < src.shape.size(); d++)
    if (!(per_row && src.shape[d].role == Role::Y)) reduced.push_back(d);
  std::string rdom = "RDom r(";
  std::string value = src.reader + "(";
  for (size_t d = 0, k = 0; d < src.shape.size(); d++) {
    const bool is_reduced = std::count(reduced.begin(), reduced.end(), d) > 0;
    if (is_reduced) rdom += (k ? ", 0, " : "0, ") + str(src.shape[d].extent);
    value += (d ? ", " : "") + (is_reduced ? rvar(k++, reduced.size()) : std::string("y"));
  }
  rdom += ", \"r_" + n.name + "\");";
  value += ")";
  n.lines.push_back("{");
  n.lines.push_back("    " + rdom);
  n.lines.push_back("    " + n.name + "(" + args_text(shape) + ") = " + (weighted ? "0.0f" : "0") + ";");
  n.lines.push_back("    Expr value = " + value + ";");
  const std::string bin = index_of("value", src.type, bins) + (per_row ? ", y" : "");
  n.lines.push_back("    " + n.name + "(" + bin + ") += " + (weighted ? cast_to(Elem::F32, src.type, "value") : "1") + ";");
  n.lines.push_back("}");
  return true;
}

// A lookup table: a curve of its index, or the normalized curve of a table so far (for
// example an equalization curve from a cumulative histogram).
bool PipelineWriter::make_table() {
  const bool from_table = rng_.percent(50);
  std::optional<size_t> src_index;
  if (from_table) src_index = pick(is_table);
  if (src_index) {
    const Node &src = nodes_[*src_index];
    const Elem out = rng_.pick(std::vector<Elem>{Elem::U8, Elem::U16, Elem::F32});
    const double full = out == Elem::U8 ? 255 : out == Elem::U16 ? 65535 : 1;
    Node &n = define("curve", out, src.shape, "normalized curve of " + src.name, {*src_index});
    const std::string rest = src.shape.size() > 1 ? ", y" : "";
    n.lines.push_back("{");
    n.lines.push_back("    Expr last = cast<float>(" + src.reader + "(" + str(src.shape[0].extent - 1) + rest + "));");
    // Divides by at least 1: never by zero.
    n.lines.push_back("    " + n.name + "(" + args_text(src.shape) + ") = " +
                      convert(out, Elem::F32, "cast<float>(" + src.reader + "(i" + rest + ")) * " + float_literal(full) +
                                                  " / max(abs(last), 1.0f)") +
                      ";");
    n.lines.push_back("}");
    return true;
  }
  const int64_t size = rng_.pick(std::vector<int64_t>{256, 1024, 4096});
  const Elem out = rng_.pick(std::vector<Elem>{Elem::U8, Elem::U16, Elem::I16, Elem::F32});
  const double full = out == Elem::U8 ? 255 : out == Elem::U16 ? 65535 : out == Elem::I16 ? 32767 : 1;
  const std::string t = "cast<float>(i) / " + float_literal(double(size - 1));  // in [0, 1]
  std::string curve, what;
  switch (rng_.between(0, 2)) {
    case 0:
      curve = "pow(" + t + ", " + float_literal(rng_.pick(std::vector<double>{0.45, 2.2, 0.5, 1.5})) + ")";
      what = "gamma curve";
      break;
    case 1:
      curve = "(0.5f - 0.5f * cos(" + t + " * 3.14159265f))";
      what = "S-curve";
      break;
    default:
      curve = "abs(" + t + " * 2.0f - 1.0f)";
      what = "triangle curve";
      break;
  }
  Node &n = define("curve", out, {{Role::I, size}}, str(size) + "-entry " + what, {});
  n.lines.push_back(n.name + "(i) = " + convert(out, Elem::F32, curve + " * " + float_literal(full)) + ";");
  return true;
}

// Gathers: each point of an image looks its value up in a table (index clamped).
bool PipelineWriter::lookup() {
  auto table_index = pick(is_table);
  if (!table_index) return false;
  auto src_index = pick(is_dense);
  const Node &table = nodes_[*table_index];
  const Node &src = nodes_[*src_index];
  const Elem out = result_type(table.type);
  Node &n = define("lookup", out, src.shape, "values of " + src.name + " looked up in " + table.name,
                   {*table_index, *src_index});
  n.lines.push_back("{");
  n.lines.push_back("    Expr value = " + read(src, src.shape) + ";");
  n.lines.push_back("    " + n.name + "(" + args_text(src.shape) + ") = " +
                    convert(out, table.type, read(table, src.shape, index_of("value", src.type, table.shape[0].extent))) +
                    ";");
  n.lines.push_back("}");
  return true;
}

// Data-dependent gathers: an image read at its own coordinates displaced by up to a few
// pixels, the displacement read from another Func; the coordinates are clamped to the domain.
bool PipelineWriter::warp() {
  auto src_index = pick(is_image);
  if (!src_index) return false;
  auto by_index = pick(is_dense);
  const Node &src = nodes_[*src_index];
  const Node &by = nodes_[*by_index];
  const int64_t radius = rng_.between(1, 8);
  const bool both = rng_.percent(60);
  const Elem out = result_type(src.type);
  Node &n = define("warp", out, src.shape,
                   "gather of " + src.name + " displaced by up to " + str(radius) + " pixels by " + by.name,
                   {*src_index, *by_index});
  const std::string w1 = str(src.shape[0].extent - 1), h1 = str(src.shape[1].extent - 1);
  n.lines.push_back("{");
  n.lines.push_back("    Expr displacement = " + read(by, src.shape) + ";");
  n.lines.push_back("    Expr dx = " + index_of("displacement", by.type, 2 * radius + 1) + " - " + str(radius) + ";");
  std::string sy = "y";
  if (both) {
    n.lines.push_back("    Expr dy = " + str(radius) + " - " + index_of("displacement", by.type, 2 * radius + 1) + ";");
    sy = "clamp(y + dy, 0, " + h1 + ")";
  }
  const std::string value = src.reader + "(" + offset_args(src.shape, "clamp(x + dx, 0, " + w1 + ")", sy) + ")";
  n.lines.push_back("    " + n.name + "(" + args_text(src.shape) + ") = " + convert(out, src.type, value) + ";");
  n.lines.push_back("}");
  return true;
}

// Channel mixing (a 1x1 convolution over an RDom of channels), or a grey image expanded to
// channels.
bool PipelineWriter::channel_mix() {
  auto src_index = pick(is_image);
  if (!src_index) return false;
  const Node &src = nodes_[*src_index];
  const int64_t w = src.shape[0].extent, h = src.shape[1].extent;
  const Elem work = working_type({src.type});
  const bool fl = is_float(work);
  if (src.shape.size() == 2) {
    const int64_t channels = rng_.between(2, 4);
    if (w * h * channels > kMaxPoints) return false;
    Node &n = define("expand", work, image_shape(w, h, channels), str(channels) + " channels scaled from " + src.name,
                     {*src_index});
    std::string gains;
    for (int64_t k = 0; k < channels; k++)
      gains += (k ? ", " : "") + (fl ? float_literal(double(rng_.between(1, 8)) / 4) : str(rng_.between(1, 4)));
    n.lines.push_back(n.name + "(x, y, c) = " + cast_to(work, src.type, src.reader + "(x, y)") + " * mux(c, {" + gains + "});");
    return true;
  }
  // Writer version 2: a layer, the sum a Func of its own that only the activation reads.
  const bool layer = options_.writer_version >= 2;
  const int64_t channels = std::max<int64_t>(1, random_channels(w, h, layer));
  Node &n = define("channel_mix", work, image_shape(w, h, channels),
                   str(src.shape[2].extent) + " to " + str(channels) + " channel mix of " + src.name +
                       (layer ? ", then max(sum + bias, 0)" : ""),
                   {*src_index});
  // Weights from a small formula of (c, r): no table of constants needed.
  const std::string weight = "((c * " + str(rng_.between(2, 7)) + " + r * " + str(rng_.between(2, 7)) + ") % " +
                             str(rng_.between(3, 9)) + " - 2)";
  const std::string sum = layer ? n.name + "_sum" : n.name;
  n.lines.push_back("{");
  if (layer) n.lines.push_back("    Func " + sum + "(\"" + sum + "\");");
  n.lines.push_back("    RDom r(0, " + str(src.shape[2].extent) + ", \"r_" + n.name + "\");");
  n.lines.push_back("    " + sum + "(x, y, c) = " + (fl ? "0.0f" : "0") + ";");
  n.lines.push_back("    " + sum + "(x, y, c) += " + cast_to(work, src.type, src.reader + "(x, y, r)") + " * " +
                    (fl ? "cast<float>" + weight + " * 0.25f" : weight) + ";");
  if (layer) {
    // A bias per output channel, then a rectifier: pointwise in the sum.
    const std::string bias = "(c % " + str(rng_.between(2, 5)) + ")";
    n.lines.push_back("    " + n.name + "(x, y, c) = max(" + sum + "(x, y, c) + " +
                      (fl ? "cast<float>" + bias + " * 0.5f, 0.0f" : bias + ", 0") + ");");
  }
  n.lines.push_back("}");
  return true;
}

// A matrix product of two 2-D Funcs (rows of one, columns of the other) over an RDom.
bool PipelineWriter::matmul() {
  auto a_index = pick(is_image_2d);
  if (!a_index) return false;
  auto b_index = pick(is_image_2d);
  const Node &a = nodes_[*a_index];
  const Node &b = nodes_[*b_index];
  const int64_t k = std::min({a.shape[0].extent, b.shape[1].extent, int64_t(256)});
  const int64_t w = b.shape[0].extent, h = a.shape[1].extent;
  if (w * h > (int64_t(1) << 24) || w * h * k > (int64_t(1) << 31)) return false;
  Node &n = define("matmul", Elem::F32, image_shape(w, h, 0),
                   "product of " + a.name + " and " + b.name + " over " + str(k) + " terms", {*a_index, *b_index});
  n.lines.push_back("{");
  n.lines.push_back("    RDom r(0, " + str(k) + ", \"r_" + n.name + "\");");
  n.lines.push_back("    " + n.name + "(x, y) = 0.0f;");
  n.lines.push_back("    " + n.name + "(x, y) += " + cast_to(Elem::F32, a.type, a.reader + "(r, y)") + " * " +
                    cast_to(Elem::F32, b.type, b.reader + "(x, r)") + ";");
  n.lines.push_back("}");
  return true;
}

}  // namespace hlsched::server::random_pipeline
