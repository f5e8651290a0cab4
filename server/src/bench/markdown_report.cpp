#include "bench/markdown_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace hlsched::server::bench {
namespace {

std::string format(const char *pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// Milliseconds with 3 significant digits at least: 12.3, 1.23, 0.0123.
std::string ms(double value) {
  if (value >= 100) return format("%.1f", value);
  if (value >= 1) return format("%.3f", value);
  return format("%.4f", value);
}

// Percent with 2 significant digits at least: 45%, 3.2%, 0.0046%.
std::string percent(double fraction) {
  return format(fraction >= 0.1 ? "%.0f%%" : fraction >= 0.001 ? "%.1f%%" : "%.2g%%", fraction * 100);
}
std::string times(double ratio) { return format(ratio >= 0.1 ? "%.2f×" : "%.2g×", ratio); }

// A runtime cell: "1.234 (45%)", bold when it is the fastest of the row; why it is missing.
std::string runtime_cell(const AppRow &row, const std::string &label, double fastest) {
  const Measurement *m = row.find(label);
  if (!m) return "";
  if (m->status == "not_compiled") return "did not compile";
  if (m->status == "skipped") return "not run (time)";
  if (m->status != "ok") return "failed";
  std::string cell = ms(m->median_ms);
  if (auto f = row.floor_fraction(label)) cell += " (" + percent(*f) + ")";
  if (!m->output_matches) return cell + " ≠";
  return m->median_ms == fastest ? "**" + cell + "**" : cell;
}

double fastest_usable(const AppRow &row) {
  double best = INFINITY;
  for (const auto &[label, m] : row.by_label)
    if (m.usable()) best = std::min(best, m.median_ms);
  return best;
}

void runtime_table(std::ostringstream &out, const ReportModel &model, const MarkdownOptions &options) {
  std::vector<std::string> baselines;
  for (const auto &label : model.labels)
    if (label != options.ours) baselines.push_back(label);
  const bool has_ours = std::find(model.labels.begin(), model.labels.end(), options.ours) != model.labels.end();

  out << "| app | floor (ms) |";
  for (const auto &label : model.labels) out << " " << label << " (ms) |";
  if (has_ours)
    for (const auto &b : baselines) out << " " << options.ours << " vs " << b << " |";
  out << "\n|---|---:|";
  for (size_t i = 0; i < model.labels.size() + (has_ours ? baselines.size() : 0); i++) out << "---:|";
  out << "\n";

  std::map<std::string, std::vector<double>> fractions, speedups;
  for (const AppRow &row : model.apps) {
    out << "| " << row.app << " | " << (row.floor_ms ? ms(*row.floor_ms) : "?") << " |";
    const double fastest = fastest_usable(row);
    for (const auto &label : model.labels) {
      out << " " << runtime_cell(row, label, fastest) << " |";
      if (auto f = row.floor_fraction(label)) fractions[label].push_back(*f);
    }
    if (has_ours)
      for (const auto &b : baselines) {
        const auto s = speedup(row, options.ours, b);
        out << " " << (s ? times(*s) : "") << " |";
        if (s) speedups[b].push_back(*s);
      }
    out << "\n";
  }
  out << "| **geomean** | |";
  for (const auto &label : model.labels) {
    const auto g = geometric_mean(fractions[label]);
    out << " " << (g ? "(" + percent(*g) + ")" : "") << " |";
  }
  if (has_ours)
    for (const auto &b : baselines) {
      const auto g = geometric_mean(speedups[b]);
      const size_t n = speedups[b].size();
      out << " " << (g ? "**" + times(*g) + "** (" + std::to_string(n) + (n == 1 ? " app)" : " apps)") : "") << " |";
    }
  out << "\n\n";
  out << (model.backend == "host" ? "Runtimes are medians over repeated calls, timed with the host's clock. "
                                   : "Runtimes are medians over repeated calls, timed with CUDA events, inputs resident on the GPU. ")
      << "(NN%) = the physical floor (inputs read once + outputs written once at the measured copy "
         "bandwidth) over the runtime: the fraction of that roofline reached. **Bold**: fastest of the row. "
         "≠: the output differs from the reference variant's (see below); such runtimes are left out of "
         "the comparisons. \""
      << options.ours << " vs X\" = runtime of X / runtime of " << options.ours << " (above 1: " << options.ours
      << " is faster).\n\n";
}

void prediction_table(std::ostringstream &out, const ReportModel &model) {
  std::vector<std::string> rows;
  std::vector<double> ratios;
  for (const AppRow &row : model.apps)
    for (const auto &label : model.labels) {
      const Measurement *m = row.find(label);
      if (!m || !m->predicted_ms) continue;
      std::string line = "| " + row.app + " | " + label + " | " + ms(*m->predicted_ms) + " | ";
      if (m->usable() && *m->predicted_ms > 0) {
        const double ratio = m->median_ms / *m->predicted_ms;
        ratios.push_back(ratio);
        line += ms(m->median_ms) + " | " + times(ratio) + " |";
      } else {
        line += m->status == "ok" ? ms(m->median_ms) + " ≠ | |" : m->status + " | |";
      }
      rows.push_back(line);
    }
  if (rows.empty()) return;
  out << "### Predicted vs measured (per pipeline)\n\n| app | variant | predicted (ms) | measured (ms) | measured / predicted |\n"
         "|---|---|---:|---:|---:|\n";
  for (const auto &r : rows) out << r << "\n";
  if (auto g = geometric_mean(ratios)) out << "| **geomean** | | | | " << times(*g) << " |\n";
  out << "\n";
}

void stage_tables(std::ostringstream &out, const ReportModel &model) {
  bool header = false;
  for (const AppRow &row : model.apps)
    for (const auto &label : model.labels) {
      const Measurement *m = row.find(label);
      if (!m || m->predicted_stages.empty() || !m->usable()) continue;
      if (!header) {
        out << "### Predicted vs measured (per stage)\n\nMeasured: the median time per call of the kernels "
               "(CUPTI) whose names say they compute the Func; a stage without kernels runs inlined or on the "
               "host.\n\n";
        header = true;
      }
      // Measured time per (func, stage), and which kernels are not predicted at all.
      std::map<std::pair<std::string, int>, std::pair<double, int>> measured;
      for (const auto &k : m->kernels) {
        auto &slot = measured[{k.func, k.stage}];
        slot.first += k.ms;
        slot.second++;
      }
      out << "**" << row.app << "** (" << label << "): predicted " << ms(*m->predicted_ms) << " ms, measured "
          << ms(m->median_ms) << " ms";
      if (m->kernels.empty()) out << " (no per-kernel times in these results)";
      out << "\n\n| func | stage | placement | predicted (ms) | kernels (ms) | kernels |\n|---|---:|---|---:|---:|---:|\n";
      for (const auto &s : m->predicted_stages) {
        if (s.placement == "inline" && s.predicted_ms == 0) continue;
        auto it = measured.find({s.func, s.stage});
        out << "| " << s.func << " | " << s.stage << " | " << s.placement << " | " << ms(s.predicted_ms) << " | "
            << (it != measured.end() ? ms(it->second.first) : "–") << " | "
            << (it != measured.end() ? std::to_string(it->second.second) : "0") << " |\n";
        if (it != measured.end()) measured.erase(it);
      }
      for (const auto &[key, value] : measured)
        out << "| " << (key.first.empty() ? "(unattributed)" : key.first) << " | " << key.second << " | not predicted | | "
            << ms(value.first) << " | " << value.second << " |\n";
      out << "\n";
    }
}

void problems(std::ostringstream &out, const ReportModel &model) {
  std::vector<std::string> lines;
  for (const AppRow &row : model.apps)
    for (const auto &[label, m] : row.by_label) {
      if (m.status != "ok") {
        std::string error = m.error;
        std::replace(error.begin(), error.end(), '\n', ' ');
        if (error.size() > 300) error = error.substr(0, 297) + "...";
        lines.push_back("- " + row.app + " / " + label + ": " + m.status + (error.empty() ? "" : ": " + error));
      } else if (!m.output_matches) {
        lines.push_back("- " + row.app + " / " + label + ": output differs from the reference: " + m.check_detail);
      }
    }
  if (lines.empty()) return;
  out << "### Problems\n\n";
  for (const auto &l : lines) out << l << "\n";
  out << "\n";
}

}  // namespace

std::string markdown_report(const ReportModel &model, const MarkdownOptions &options) {
  std::ostringstream out;
  out << "## Benchmark: " << model.device << "\n\n";
  out << "Measured " << model.date;
  if (!model.commit.empty()) out << " at commit " << model.commit.substr(0, 12) << (model.tree_dirty ? " (with local changes)" : "");
  out << "; target `" << model.target << "`";
  if (model.copy_gb_per_s) out << "; device-to-device copy " << format("%.0f", *model.copy_gb_per_s) << " GB/s (read + written)";
  out << ".";
  if (!model.complete) out << " **The run did not finish: these results are partial.**";
  out << "\n\n";
  runtime_table(out, model, options);
  prediction_table(out, model);
  if (options.stages) stage_tables(out, model);
  problems(out, model);
  return out.str();
}

}  // namespace hlsched::server::bench
