// SASS is evidence: each version's kernels, disassembled with cuobjdump, contain the instructions
// its technique claims and none it must not have. A new version adds one line to `rules`.
#include <catch2/catch_test_macros.hpp>

#include <cctype>
#include <cstdio>
#include <algorithm>
#include <sstream>
#include <string>

#include "matmul_versions.h"

namespace {

struct SassRule {
  std::string version;
  std::vector<std::string> required;                // each must appear at least once
  std::vector<std::string> forbidden;               // none may appear
  std::vector<std::string> forbidden_in_mma_loop = {};  // none may appear in the loop around the HGMMAs
};

// An entry matches an opcode equal to it or starting with it followed by '.':
// "HGMMA" matches "HGMMA.64x128x16.F32", "SYNCS.ARRIVE" matches "SYNCS.ARRIVE.TRANS64.A1T0".
const std::vector<SassRule> rules = {
    {"v0_naive", {"FFMA", "LDG.E.U16"}, {"HGMMA", "UTMALDG", "SYNCS"}},
    {"v1_tma",
     {"HGMMA.64x128x16.F32", "UTMALDG.2D", "SYNCS.EXCH.64", "SYNCS.ARRIVE.TRANS64", "SYNCS.PHASECHK.TRANS64.TRYWAIT",
      "WARPGROUP.ARRIVE", "BAR.SYNC"},
     {"FFMA"}},
    {"v2_pipelined",
     {"HGMMA.64x128x16.F32", "UTMALDG.2D", "SYNCS.EXCH.64", "SYNCS.ARRIVE.TRANS64", "SYNCS.PHASECHK.TRANS64.TRYWAIT",
      "WARPGROUP.ARRIVE", "BAR.SYNC"},
     {"FFMA"}},
    {"v3_warpspec",
     {"HGMMA.64x192x16.F32", "UTMALDG.2D", "SYNCS.EXCH.64", "SYNCS.ARRIVE.TRANS64", "SYNCS.ARRIVE.TRANS64.A1T0",
      "SYNCS.PHASECHK.TRANS64.TRYWAIT"},
     {"FFMA"},
     {"BAR.SYNC"}},
    {"v4_two_consumers",
     {"HGMMA.64x256x16.F32", "UTMALDG.2D", "SYNCS.EXCH.64", "SYNCS.ARRIVE.TRANS64", "SYNCS.ARRIVE.TRANS64.A1T0",
      "SYNCS.PHASECHK.TRANS64.TRYWAIT", "USETMAXREG.TRY_ALLOC.CTAPOOL", "USETMAXREG.DEALLOC.CTAPOOL"},
     {"FFMA"},
     {"BAR.SYNC"}},
};

// Local memory (register spills, runtime-indexed arrays) is forbidden in every version.
const std::vector<std::string> forbidden_everywhere = {"LDL", "STL"};

// cuobjdump prints SASS through nvdisasm, which it looks for on PATH: the one beside it.
std::string disassemble(const std::string& library) {
  const std::string tool = CUOBJDUMP;
  const std::string dir = tool.substr(0, tool.find_last_of('/'));
  const std::string command = "PATH='" + dir + "':\"$PATH\" '" + tool + "' --dump-sass '" + library + "' 2>&1";
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  REQUIRE(pclose(p) == 0);
  return out;
}

struct Instruction {
  unsigned address;
  std::string op;        // "HGMMA.64x16x16.F32"
  std::string operands;  // what follows it, up to the ';'
};
using Kernel = std::vector<Instruction>;

// The instructions of each kernel in order, one list per "Function :" of the listing:
// "/*0090*/  @!P0 BRA 0x810 ;" -> {0x90, "BRA", "0x810"}.
std::vector<Kernel> kernels(const std::string& sass) {
  std::vector<Kernel> functions;
  std::istringstream lines(sass);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("Function : ") != std::string::npos) functions.emplace_back();
    const size_t open = line.find_first_not_of(" \t"), close = line.find("*/");
    if (functions.empty() || open == std::string::npos || line.compare(open, 2, "/*") != 0 || close == std::string::npos)
      continue;
    Instruction in{unsigned(std::stoul(line.substr(open + 2, close - open - 2), nullptr, 16)), "", ""};
    std::istringstream words(line.substr(close + 2, line.find(';') - close - 2));
    words >> in.op;
    if (!in.op.empty() && in.op[0] == '@') words >> in.op;  // predicate guard
    std::getline(words >> std::ws, in.operands);
    in.operands.erase(in.operands.find_last_not_of(' ') + 1);
    if (!in.op.empty() && std::isupper(static_cast<unsigned char>(in.op[0]))) functions.back().push_back(in);
  }
  return functions;
}

bool matches(const std::string& op, const std::string& pattern) {
  return op.rfind(pattern, 0) == 0 && (op.size() == pattern.size() || op[pattern.size()] == '.');
}

size_t count(const std::vector<Kernel>& functions, const std::string& pattern) {
  size_t n = 0;
  for (const Kernel& f : functions)
    for (const Instruction& in : f) n += matches(in.op, pattern);
  return n;
}

// How many `pattern` instructions a kernel's main loop holds: the loop is the range from the
// target of the first backward branch after the last HGMMA (a branch to at or before the first
// HGMMA) to that branch; without such a branch, the range from the first HGMMA to the last.
size_t count_in_mma_loop(const Kernel& f, const std::string& pattern) {
  size_t first = f.size(), last = 0;
  for (size_t i = 0; i < f.size(); ++i)
    if (matches(f[i].op, "HGMMA")) first = std::min(first, i), last = i;
  if (first == f.size()) return 0;
  unsigned from = f[first].address, to = f[last].address;
  for (size_t i = last + 1; i < f.size(); ++i) {
    if (!matches(f[i].op, "BRA")) continue;
    const unsigned target = unsigned(std::stoul(f[i].operands, nullptr, 16));
    if (target <= f[first].address) {
      from = target, to = f[i].address;
      break;
    }
  }
  size_t n = 0;
  for (const Instruction& in : f) n += in.address >= from && in.address <= to && matches(in.op, pattern);
  return n;
}

}  // namespace

TEST_CASE("SASS parsing reads cuobjdump's instruction lines and finds the MMA loop") {
  const std::string sample =
      "        Function : _Z6kernelv\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;                /* 0x00000a00ff017b82 */\n"
      "        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
      "        /*0020*/              @!P0 HGMMA.64x16x16.F32 R24, gdesc[UR4], R24 ;  /* 0x000000000418 */\n"
      "                                                                             /* 0x000fe20008000000 */\n"
      "        /*0030*/                   HGMMA.64x16x16.F32 R24, gdesc[UR4], R24, gsb0 ;\n"
      "        /*0040*/                   SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR4], RZ ;\n"
      "        /*0050*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
      "        /*0060*/              @!P1 BRA 0x20 ;\n"
      "        /*0070*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
      "        Function : _Z6secondv\n"
      "        /*0000*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n";
  const auto functions = kernels(sample);
  REQUIRE(functions.size() == 2);
  const Kernel& f = functions[0];
  REQUIRE(f.size() == 8);
  CHECK(f[2].op == "HGMMA.64x16x16.F32");
  CHECK(f[2].address == 0x20);
  CHECK(f[6].op == "BRA");
  CHECK(f[6].operands == "0x20");
  CHECK(count(functions, "HGMMA") == 2);
  CHECK(count(functions, "SYNCS.ARRIVE") == 1);
  CHECK(count(functions, "SYNC") == 0);  // a prefix must end at a '.'
  CHECK(count(functions, "BAR.SYNC") == 4);
  CHECK(count_in_mma_loop(f, "BAR.SYNC") == 1);  // 0x50, inside the loop 0x20-0x60; not 0x10 or 0x70
  CHECK(count_in_mma_loop(functions[1], "BAR.SYNC") == 0);  // no HGMMA, no loop
}

TEST_CASE("every registered version has a SASS rule") {
  for (const auto& [name, library] : matmul::version_libraries()) {
    bool found = false;
    for (const SassRule& r : rules) found = found || r.version == name;
    INFO(name << " has no line in tests/test_sass.cpp's rules");
    CHECK(found);
  }
}

TEST_CASE("each version's SASS has the instructions of its technique and no local memory") {
  for (const auto& [name, library] : matmul::version_libraries()) {
    const std::vector<Kernel> functions = kernels(disassemble(library));
    INFO(name << ": " << functions.size() << " kernels in " << library);
    REQUIRE(functions.size() > 0);
    for (const SassRule& r : rules) {
      if (r.version != name) continue;
      for (const std::string& op : r.required) {
        INFO("required " << op);
        CHECK(count(functions, op) > 0);
      }
      for (const std::string& op : r.forbidden) {
        INFO("forbidden " << op);
        CHECK(count(functions, op) == 0);
      }
      for (const std::string& op : r.forbidden_in_mma_loop)
        for (const Kernel& f : functions) {
          INFO("forbidden in the loop around the HGMMAs: " << op);
          CHECK(count_in_mma_loop(f, op) == 0);
        }
    }
    for (const std::string& op : forbidden_everywhere) {
      INFO("forbidden everywhere: " << op);
      CHECK(count(functions, op) == 0);
    }
  }
}
