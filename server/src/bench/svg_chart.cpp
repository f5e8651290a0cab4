#include "bench/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace hlsched::server::bench {
namespace {

constexpr double kLeft = 170, kPlotWidth = 560, kRight = 90, kTop = 70, kBar = 11, kBarGap = 2, kGroupGap = 12;

std::string escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string number(const char *pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string color(size_t index, const std::string &label) {
  if (label == "manual") return "#4c72b0";
  if (label == "li2018") return "#dd8452";
  if (label == "hlsched") return "#55a868";
  static const char *palette[] = {"#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd"};
  return palette[index % 6];
}

// The value a bar shows: runtime over the floor (or over the row's fastest runtime).
std::vector<std::pair<std::string, double>> bar_values(const AppRow &row, const std::vector<std::string> &labels,
                                                       bool by_floor) {
  double fastest = INFINITY;
  for (const auto &[label, m] : row.by_label)
    if (m.usable()) fastest = std::min(fastest, m.median_ms);
  std::vector<std::pair<std::string, double>> values;
  for (const auto &label : labels) {
    const Measurement *m = row.find(label);
    if (!m) continue;
    double v = 0;  // 0: no bar (failed)
    if (m->status == "ok" && m->median_ms > 0) v = by_floor && row.floor_ms ? m->median_ms / *row.floor_ms : m->median_ms / fastest;
    values.emplace_back(label, v);
  }
  return values;
}

}  // namespace

std::string svg_chart(const ReportModel &model) {
  const bool by_floor = std::all_of(model.apps.begin(), model.apps.end(), [](const AppRow &r) { return r.floor_ms.has_value(); });
  double lo = 1, hi = 10;
  for (const AppRow &row : model.apps)
    for (const auto &[label, v] : bar_values(row, model.labels, by_floor))
      if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  const double decade_lo = std::floor(std::log10(lo)), decade_hi = std::ceil(std::log10(hi));
  auto x_of = [&](double v) { return kLeft + kPlotWidth * (std::log10(v) - decade_lo) / (decade_hi - decade_lo); };

  double height = kTop;
  for (const AppRow &row : model.apps) height += double(bar_values(row, model.labels, by_floor).size()) * (kBar + kBarGap) + kGroupGap;
  height += 40;
  const double width = kLeft + kPlotWidth + kRight;

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">" << escape("Runtime on " + model.device)
      << "</text>\n<text x=\"10\" y=\"38\" fill=\"#444\">"
      << escape(by_floor ? "× physical floor (inputs read + outputs written once at the measured copy bandwidth), log scale; shorter is faster"
                         : "× fastest variant of the app, log scale; shorter is faster")
      << "</text>\n";
  // Legend.
  double legend_x = kLeft;
  for (size_t i = 0; i < model.labels.size(); i++) {
    svg << "<rect x=\"" << legend_x << "\" y=\"48\" width=\"10\" height=\"10\" fill=\"" << color(i, model.labels[i]) << "\"/>"
        << "<text x=\"" << legend_x + 14 << "\" y=\"57\">" << escape(model.labels[i]) << "</text>\n";
    legend_x += 24 + 7.0 * double(model.labels[i].size());
  }
  // Decade grid lines.
  for (double d = decade_lo; d <= decade_hi; d++) {
    const double x = x_of(std::pow(10.0, d));
    svg << "<line x1=\"" << x << "\" y1=\"" << kTop - 6 << "\" x2=\"" << x << "\" y2=\"" << height - 30
        << "\" stroke=\"#ddd\"/><text x=\"" << x << "\" y=\"" << height - 16 << "\" text-anchor=\"middle\" fill=\"#444\">"
        << number(d >= 0 ? "%.0f×" : "%g×", std::pow(10.0, d)) << "</text>\n";
  }
  // Bars.
  double y = kTop;
  for (const AppRow &row : model.apps) {
    const auto values = bar_values(row, model.labels, by_floor);
    const double group_height = double(values.size()) * (kBar + kBarGap);
    svg << "<text x=\"" << kLeft - 8 << "\" y=\"" << y + group_height / 2 + 4 << "\" text-anchor=\"end\">" << escape(row.app)
        << "</text>\n";
    for (const auto &[label, v] : values) {
      const size_t index = size_t(std::find(model.labels.begin(), model.labels.end(), label) - model.labels.begin());
      const Measurement *m = row.find(label);
      if (v > 0) {
        const double x1 = x_of(v);
        std::string note = number(m->median_ms >= 1 ? "%.3g ms" : "%.3f ms", m->median_ms);
        if (!m->output_matches) note += " (output differs)";
        svg << "<rect x=\"" << kLeft << "\" y=\"" << y << "\" width=\"" << std::max(1.0, x1 - kLeft) << "\" height=\"" << kBar
            << "\" fill=\"" << color(index, label) << "\"" << (m->output_matches ? "" : " fill-opacity=\"0.4\"") << "><title>"
            << escape(row.app + " / " + label + ": " + note) << "</title></rect>"
            << "<text x=\"" << x1 + 4 << "\" y=\"" << y + kBar - 2 << "\" font-size=\"9\" fill=\"#333\">" << escape(note)
            << "</text>\n";
      } else {
        svg << "<text x=\"" << kLeft + 4 << "\" y=\"" << y + kBar - 2 << "\" font-size=\"9\" fill=\"#b00\">"
            << escape(label + ": " + (m ? m->status : std::string("missing"))) << "</text>\n";
      }
      y += kBar + kBarGap;
    }
    y += kGroupGap;
  }
  svg << "<line x1=\"" << kLeft << "\" y1=\"" << kTop - 6 << "\" x2=\"" << kLeft << "\" y2=\"" << height - 30
      << "\" stroke=\"#333\"/>\n</svg>\n";
  return svg.str();
}

}  // namespace hlsched::server::bench
