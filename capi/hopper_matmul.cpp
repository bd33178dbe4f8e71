// The C ABI of capi/hopper_matmul.h over the registered rungs (matmul::Version): names looked up in
// the registry, C++ exceptions turned into a status and a message kept per thread.
#include "capi/hopper_matmul.h"

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/hopper/tile_queue.h"
#include "common/problem.h"
#include "common/version.h"
#include "matmul_versions.h"

struct hm_queue {
  hopper::TileQueue queue;
};

namespace {

thread_local std::string last_error;

const std::vector<const matmul::Version*>& rungs() {
  static const std::vector<const matmul::Version*> all = matmul::registered_versions();
  return all;
}

// Runs `call`, keeping the message of what it threw; the status says which kind of failure.
template <typename F>
hm_status guarded(F&& call) {
  try {
    call();
    last_error.clear();
    return HM_OK;
  } catch (const std::invalid_argument& e) {
    last_error = e.what();
    return HM_INVALID_ARGUMENT;
  } catch (const matmul::NotImplemented& e) {
    last_error = e.what();
    return HM_NOT_IMPLEMENTED;
  } catch (const std::exception& e) {
    last_error = e.what();
    return HM_CUDA_ERROR;
  } catch (...) {  // nothing may cross the C boundary
    last_error = "an exception that is not a std::exception";
    return HM_CUDA_ERROR;
  }
}

}  // namespace

extern "C" {

const char* hm_last_error(void) { return last_error.c_str(); }

int hm_version_count(void) { return int(rungs().size()); }

const char* hm_version_name(int i) {
  return i >= 0 && i < hm_version_count() ? rungs()[size_t(i)]->name.c_str() : nullptr;
}

hm_status hm_queue_create(hm_queue** queue) {
  return guarded([&] {
    if (queue == nullptr) throw std::invalid_argument("hm_queue_create: queue is NULL: pass where to put it");
    *queue = nullptr;
    *queue = new hm_queue{};
  });
}

void hm_queue_destroy(hm_queue* queue) { delete queue; }

hm_status hm_matmul(const char* version, hm_dtype dtype, const void* a, const void* b, void* c, int m, int n, int k,
                    cudaStream_t stream, hm_queue* queue) {
  if (version == nullptr) {
    last_error = "hm_matmul: version is NULL: name a rung (hm_version_name)";
    return HM_UNKNOWN_VERSION;
  }
  const matmul::Version* rung = nullptr;
  for (const matmul::Version* v : rungs())
    if (v->name == version) rung = v;
  if (rung == nullptr) {
    std::string names;
    for (const matmul::Version* v : rungs()) names += (names.empty() ? "" : ", ") + v->name;
    last_error = "hm_matmul: no rung named '" + std::string(version) + "'; the rungs: " + names;
    return HM_UNKNOWN_VERSION;
  }
  return guarded([&] {
    if (dtype != HM_FP16 && dtype != HM_BF16)
      throw std::invalid_argument("hm_matmul: dtype " + std::to_string(int(dtype)) +
                                  " is neither HM_FP16 (0) nor HM_BF16 (1)");
    rung->run(dtype == HM_FP16 ? matmul::DType::fp16 : matmul::DType::bf16, a, b, c, m, n, k, stream,
              queue ? &queue->queue : nullptr);
  });
}

}  // extern "C"
