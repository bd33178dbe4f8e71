#include "common/hopper/tensor_map.h"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace hopper {

namespace {

[[noreturn]] void refuse(const std::string& what, int64_t value, const std::string& rule) {
  throw std::invalid_argument("tensor map: " + what + " = " + std::to_string(value) + " is invalid: " + rule);
}

// The driver's encoder, reached through the runtime so that nothing links against libcuda.
PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t status =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
    if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || p == nullptr)
      throw std::runtime_error("the CUDA driver has no cuTensorMapEncodeTiled (needs CUDA 12 or newer)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

}  // namespace

TileMapParams tile_map_params(int64_t rows, int64_t cols, int box_rows, int box_cols, int element_bytes) {
  const int64_t element = element_bytes;
  if (element != 1 && element != 2) refuse("element size in bytes", element, "must be 1 or 2");
  if (rows < 1) refuse("rows", rows, "must be at least 1");
  if (cols < 1) refuse("cols", cols, "must be at least 1");
  if (cols * element % 16 != 0) refuse("row pitch in bytes", cols * element, "must be a multiple of 16");
  if (rows > (int64_t(1) << 32) || cols > (int64_t(1) << 32))
    refuse("rows or cols", std::max(rows, cols), "must be at most 2^32");
  if (box_rows < 1 || box_rows > 256) refuse("box rows", box_rows, "must be between 1 and 256");
  const int64_t box_row = box_cols * element;
  if (box_row != swizzle_bytes && box_row != swizzle_bytes / 2)
    refuse("box row in bytes", box_row, "must be 128 or 64, one span of 128- or 64-byte swizzle");
  return {{uint64_t(cols), uint64_t(rows)},
          uint64_t(cols * element),
          {uint32_t(box_cols), uint32_t(box_rows)},
          uint32_t(box_rows * box_row),
          uint32_t(box_row)};
}

// [region:encode_tile_map]
CUtensorMap encode_tile_map(const void* base, CUtensorMapDataType type, const TileMapParams& p) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {p.dims[0], p.dims[1]};
  const cuuint64_t strides[1] = {p.row_pitch_bytes};
  const cuuint32_t box[2] = {p.box[0], p.box[1]};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult status =
      encoder()(&map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, p.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B,
                p.promote_l2 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(status)));
  return map;
}
// [/region:encode_tile_map]

}  // namespace hopper
