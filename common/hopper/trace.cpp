#include "common/hopper/trace.h"

namespace hopper::trace {

namespace {
Buffer current;
}

void set_active(const Buffer& buffer) { current = buffer; }

const Buffer& active() { return current; }

}  // namespace hopper::trace
