#include "common/harness/stats.h"

#include <algorithm>
#include <stdexcept>

namespace matmul {

Stats summarize(std::vector<float> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  const double median = n % 2 ? samples[n / 2] : 0.5 * (double(samples[n / 2 - 1]) + samples[n / 2]);
  const auto rank = [&](double q) { return double(samples[std::min(n - 1, size_t(q * double(n)))]); };
  return {median, samples.front(), samples.back(), rank(0.1), rank(0.9)};
}

}  // namespace matmul
