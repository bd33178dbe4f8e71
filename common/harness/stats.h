// Summary statistics of a set of timings.
#pragma once
#include <vector>

namespace matmul {

struct Stats {
  double median, min, max;
};

// Throws std::invalid_argument on an empty sample. An even count takes the mean of the middle two.
Stats summarize(std::vector<float> samples);

}  // namespace matmul
