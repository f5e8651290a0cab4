// The bar chart of `hlsched report`: one group of horizontal bars per app, one bar per scheduler,
// the bar's length the runtime as a multiple of the app's physical floor on a log scale (1× = as
// fast as reading the inputs and writing the outputs once; shorter is better), each bar labelled
// with its milliseconds. Without a measured copy bandwidth, runtimes are shown relative to the
// fastest variant of the app instead.
#pragma once

#include <string>

#include "bench/report_model.h"

namespace hlsched::server::bench {

/// A standalone SVG document.
std::string svg_chart(const ReportModel &model);

}  // namespace hlsched::server::bench
