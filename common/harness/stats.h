// Summary statistics of a set of timings.
#pragma once
#include <vector>

namespace matmul {

struct Stats {
  double median, min, max;
  double p10, p90;  // 10th and 90th percentiles (nearest rank)
  // How far the middle 80% of the samples spread, relative to the median: (p90 - p10) / median in %.
  double spread_pct() const { return median > 0 ? 100.0 * (p90 - p10) / median : 0.0; }
};

// Throws std::invalid_argument on an empty sample. An even count takes the mean of the middle two.
Stats summarize(std::vector<float> samples);

}  // namespace matmul
