#include "common/harness/fp8.h"

#include <cmath>
#include <vector>

#include "common/check.h"
#include "common/harness/fill.h"
#include "common/tiles.h"

namespace matmul {

namespace {

constexpr int threads = 256;

// One thread per element of the checked rows: the exact products, summed per 128 of K in fp64 and
// scaled. Slow and plain on purpose: nothing in it resembles the kernels it checks.
__global__ void reference_kernel(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, const float* scale_a,
                                 const float* scale_b, bool block, double* ref, int64_t m, int64_t n, int64_t k,
                                 int row_step, int64_t rows) {
  const int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  const int64_t r = blockIdx.y;
  if (col >= n || r >= rows) return;
  const int64_t row = r * row_step < m ? r * row_step : m - 1;  // an extra entry checks the last row
  double total = 0;
  for (int64_t kb = 0; kb < k_blocks(k); ++kb) {
    double sum = 0;
    for (int64_t i = kb * scale_block; i < k && i < (kb + 1) * scale_block; ++i)
      sum += double(float(a[row * k + i])) * double(float(b[col * k + i]));
    const double sa = block ? scale_a[kb * m + row] : scale_a[0];
    const double sb = block ? scale_b[col / scale_block * scale_b_pitch(k) + kb] : scale_b[0];
    total += sa * sb * sum;
  }
  ref[r * n + col] = total;
}

// Rows 0, row_step, 2·row_step, ... and the last row, once.
int64_t checked_rows(int64_t m, int row_step) { return ceil_div<int64_t>(m, row_step) + ((m - 1) % row_step != 0); }

}  // namespace

int64_t scale_a_count(Scaling s, Shape p) { return s == Scaling::tensor ? 1 : k_blocks(p.k) * p.m; }
int64_t scale_b_count(Scaling s, Shape p) {
  return s == Scaling::tensor ? 1 : ceil_div<int64_t>(p.n, scale_block) * scale_b_pitch(p.k);
}

Fp8Problem::Fp8Problem(Shape s, Scaling scaling)
    : shape_(s),
      scaling_(scaling),
      a_(size_t(s.m * s.k)),
      b_(size_t(s.n * s.k)),
      scale_a_(sizeof(float) * size_t(scale_a_count(scaling, s))),
      scale_b_(sizeof(float) * size_t(scale_b_count(scaling, s))),
      c_(sizeof(__nv_bfloat16) * size_t(s.m * s.n)) {
  validate_fp8_shape(s);
}

void Fp8Problem::new_inputs(uint64_t seed, int spread, int outlier_every) {
  fill_e4m3(a_.get(), a_.bytes(), seed);
  fill_e4m3(b_.get(), b_.bytes(), seed + 1);
  const bool block = scaling_ == Scaling::block;
  fill_scales(static_cast<float*>(scale_a_.get()), scale_a_.bytes() / sizeof(float), seed + 2, spread,
              block ? shape_.m : 1, block ? outlier_every : 0);
  fill_scales(static_cast<float*>(scale_b_.get()), scale_b_.bytes() / sizeof(float), seed + 3, spread, 1, 0);
}

void Fp8Problem::compute_reference(int row_step) {
  row_step_ = row_step;
  const int64_t rows = checked_rows(shape_.m, row_step);
  ref_ = DeviceBuffer(sizeof(double) * size_t(rows * shape_.n));
  const dim3 grid(unsigned(ceil_div<int64_t>(shape_.n, threads)), unsigned(rows));
  reference_kernel<<<grid, threads>>>(a(), b(), scale_a(), scale_b(), scaling_ == Scaling::block,
                                      static_cast<double*>(ref_.get()), shape_.m, shape_.n, shape_.k, row_step, rows);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
}

void Fp8Problem::poison_c(cudaStream_t stream) {
  fill_bits(c_.get(), size_t(shape_.m * shape_.n), poison_bits, stream);
}

Fp8Problem::Error Fp8Problem::compare() const {
  const int64_t rows = checked_rows(shape_.m, row_step_), n = shape_.n;
  std::vector<double> ref(size_t(rows * n));
  std::vector<__nv_bfloat16> c(size_t(shape_.m * n));
  CUDA_CHECK(cudaMemcpy(ref.data(), ref_.get(), ref_.bytes(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(c.data(), c_.get(), c_.bytes(), cudaMemcpyDeviceToHost));
  Error e;
  double diff = 0, diff_bf16 = 0, norm = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t row = r * row_step_ < shape_.m ? r * row_step_ : shape_.m - 1;
    for (int64_t col = 0; col < n; ++col) {
      const double want = ref[size_t(r * n + col)];
      const __nv_bfloat16 got_bits = c[size_t(row * n + col)];
      uint16_t bits;
      memcpy(&bits, &got_bits, sizeof(bits));
      if (bits == poison_bits) {
        ++e.unwritten;
        continue;
      }
      const double got = double(__bfloat162float(got_bits));
      if (!std::isfinite(got)) {
        ++e.nonfinite;
        continue;
      }
      const double rounded = double(__bfloat162float(__float2bfloat16(float(want))));
      diff += (got - want) * (got - want);
      diff_bf16 += (got - rounded) * (got - rounded);
      norm += want * want;
    }
  }
  e.rel_err = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  e.rel_err_vs_bf16 = norm > 0 ? std::sqrt(diff_bf16 / norm) : std::sqrt(diff_bf16);
  return e;
}

}  // namespace matmul
