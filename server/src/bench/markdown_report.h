// The markdown tables of `hlsched report`:
//   1. runtime per app per scheduler (median ms, and the fraction of the physical floor reached),
//      speedups of `ours` over every other scheduler, geometric means;
//   2. predicted vs measured runtime per pipeline (variants with an hlsched prediction);
//   3. per stage: hlsched's predicted time per Func against the measured time of the kernels that
//      compute it (CUPTI), for each variant with a prediction (optional);
//   4. what failed or computed a different output.
#pragma once

#include <string>

#include "bench/report_model.h"

namespace hlsched::server::bench {

struct MarkdownOptions {
  std::string ours = "hlsched";  ///< speedup columns compare this label with the others
  bool stages = true;            ///< include the per-stage tables
};

std::string markdown_report(const ReportModel &model, const MarkdownOptions &options = {});

}  // namespace hlsched::server::bench
