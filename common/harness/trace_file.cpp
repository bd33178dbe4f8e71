#include "common/harness/trace_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/harness/results.h"

namespace matmul {

namespace trace = hopper::trace;
using json = nlohmann::ordered_json;

TraceRecording::TraceRecording(int ctas, int capacity)
    : memory_(size_t(ctas) * trace::lanes_per_cta * trace::log_bytes(capacity)) {
  CUDA_CHECK(cudaMemset(memory_.get(), 0, memory_.bytes()));
  buffer_ = {static_cast<unsigned char*>(memory_.get()), ctas, capacity};
  trace::set_active(buffer_);
}

TraceRecording::~TraceRecording() { trace::set_active({}); }

std::string LaneLog::name() const {
  if (header.role == trace::warpgroup) return "warpgroup";
  if (header.role == trace::producer) return "producer";
  return "consumer " + std::to_string(header.index + 1);
}

std::vector<LaneLog> TraceRecording::read() const {
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> bytes(memory_.bytes());
  CUDA_CHECK(cudaMemcpy(bytes.data(), memory_.get(), bytes.size(), cudaMemcpyDeviceToHost));
  std::vector<LaneLog> logs;
  for (int slot = 0; slot < buffer_.ctas * trace::lanes_per_cta; ++slot) {
    const unsigned char* at = bytes.data() + size_t(slot) * trace::log_bytes(buffer_.capacity);
    LaneLog log;
    std::memcpy(&log.header, at, sizeof log.header);
    if (!log.header.used) continue;
    log.block = slot / trace::lanes_per_cta;
    log.marks.resize(std::min<uint32_t>(log.header.count, uint32_t(buffer_.capacity)));
    std::memcpy(log.marks.data(), at + sizeof log.header, log.marks.size() * sizeof(trace::Mark));
    logs.push_back(std::move(log));
  }
  return logs;
}

namespace {

// A mark's state as the file names it: (state, barrier waited on or empty).
std::pair<const char*, const char*> state_names(uint32_t state) {
  switch (state) {
    case trace::wait_full:
      return {"wait", "full"};
    case trace::wait_empty:
      return {"wait", "empty"};
    case trace::wait_other:
      return {"wait", ""};
    case trace::load:
      return {"load", ""};
    case trace::compute:
      return {"compute", ""};
    case trace::store:
      return {"store", ""};
  }
  throw std::runtime_error("trace: a log holds the unknown state " + std::to_string(state));
}

// The log's clock-to-nanosecond line through its two (clock, %globaltimer) pairs.
struct Clock {
  double ns0, clock0, ns_per_tick;
  int64_t ns(int64_t clock) const { return std::llround(ns0 + (double(clock) - clock0) * ns_per_tick); }
};

Clock log_clock(const LaneLog& log, int64_t origin_ns) {
  const trace::Log& h = log.header;
  if (h.clock1 <= h.clock0 || h.ns1 < h.ns0)
    throw std::runtime_error("trace: CTA " + std::to_string(log.block) + "'s " + log.name() +
                             " log has no time span (was it closed?)");
  return {double(h.ns0 - origin_ns), double(h.clock0), double(h.ns1 - h.ns0) / double(h.clock1 - h.clock0)};
}

// Consecutive marks of the same state, barrier and tile make one event.
json lane_events(const LaneLog& log, const Clock& clock) {
  json events = json::array();
  for (size_t i = 0; i + 1 < log.marks.size(); ++i) {
    const trace::Mark& mark = log.marks[i];
    if (mark.state == trace::done) break;
    const auto [state, barrier] = state_names(mark.state);
    const int64_t start = std::max<int64_t>(clock.ns(mark.clock), 0);
    const int64_t end = std::max(clock.ns(log.marks[i + 1].clock), start);
    if (!events.empty()) {
      json& last = events.back();
      const bool same =
          last["state"] == state && last.value("barrier", "") == barrier && last.value("tile", -1) == mark.tile;
      if (same) {
        last["end"] = end;
        continue;
      }
    }
    json event{{"state", state}, {"start", start}, {"end", end}};
    if (mark.tile >= 0) event["tile"] = mark.tile;
    if (*barrier) event["barrier"] = barrier;
    events.push_back(std::move(event));
  }
  return events;
}

}  // namespace

std::string trace_json(const TraceInfo& info, const std::vector<LaneLog>& logs) {
  if (logs.empty())
    throw std::runtime_error("trace: no role of " + info.version +
                             " wrote a log (only versions with roles, v2 on, are traced)");
  int64_t origin = logs.front().header.ns0;
  for (const LaneLog& log : logs) origin = std::min(origin, log.header.ns0);
  json ctas = json::array();
  for (const LaneLog& log : logs) {
    if (ctas.empty() || ctas.back()["block"] != log.block)
      ctas.push_back({{"block", log.block}, {"sm", log.header.sm}, {"lanes", json::array()}});
    json events = lane_events(log, log_clock(log, origin));
    if (events.empty()) continue;
    ctas.back()["lanes"].push_back({{"name", log.name()}, {"events", std::move(events)}});
  }
  json doc{{"version", info.version},  {"dtype", dtype_name(info.dtype)},
           {"m", info.shape.m},        {"n", info.shape.n},
           {"k", info.shape.k},        {"device", {{"name", info.device.name}, {"sm_count", info.device.sm_count}}},
           {"date", info.date},        {"git", info.git},
           {"timer", "globaltimer_ns"}};
  // One event a line: a trace holds thousands of them, and a diff of two traces stays readable.
  std::string text = "{\n";
  for (const auto& [key, value] : doc.items()) text += " " + json(key).dump() + ": " + value.dump() + ",\n";
  text += " \"ctas\": [";
  for (size_t c = 0; c < ctas.size(); ++c) {
    const json& cta = ctas[c];
    text += std::string(c ? "," : "") + "\n  {\"block\": " + cta["block"].dump() + ", \"sm\": " + cta["sm"].dump() +
            ", \"lanes\": [";
    for (size_t l = 0; l < cta["lanes"].size(); ++l) {
      const json& lane = cta["lanes"][l];
      text += std::string(l ? "," : "") + "\n   {\"name\": " + lane["name"].dump() + ", \"events\": [";
      for (size_t e = 0; e < lane["events"].size(); ++e)
        text += std::string(e ? "," : "") + "\n    " + lane["events"][e].dump();
      text += "\n   ]}";
    }
    text += "\n  ]}";
  }
  return text + "\n ]\n}\n";
}

void write_trace(const std::string& path, const TraceInfo& info, const TraceRecording& recording) {
  const std::vector<LaneLog> logs = recording.read();
  write_file(path, trace_json(info, logs));
  std::cout << "timeline of the last launch, " << logs.size() << " role logs: " << path << "\n";
  for (const LaneLog& log : logs)
    if (log.dropped())
      std::cerr << info.version << ": warning: CTA " << log.block << "'s " << log.name() << " dropped its last "
                << log.dropped() << " marks (the log's capacity)\n";
}

}  // namespace matmul
