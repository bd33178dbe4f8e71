// SASS is evidence: each version's kernels, disassembled with cuobjdump, contain the instructions
// its technique claims and none it must not have. A new version adds one line to `rules`.
#include <catch2/catch_test_macros.hpp>

#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>

#include "matmul_versions.h"

namespace {

struct SassRule {
  std::string version;
  std::vector<std::string> required;   // each must appear at least once
  std::vector<std::string> forbidden;  // none may appear
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

// The opcode of every instruction line: "/*0090*/  @!P0 HGMMA.64x16x16.F32 R24, ... ;" -> "HGMMA.64x16x16.F32".
std::multiset<std::string> opcodes(const std::string& sass) {
  std::multiset<std::string> ops;
  std::istringstream lines(sass);
  for (std::string line; std::getline(lines, line);) {
    const size_t start = line.find("*/");
    if (line.find("/*") != line.find_first_not_of(" \t") || start == std::string::npos) continue;
    std::istringstream words(line.substr(start + 2));
    std::string op;
    words >> op;
    if (!op.empty() && op[0] == '@') words >> op;  // predicate guard
    if (!op.empty() && op.back() == ';') op.pop_back();
    if (!op.empty() && std::isupper(static_cast<unsigned char>(op[0]))) ops.insert(op);
  }
  return ops;
}

bool matches(const std::string& op, const std::string& pattern) {
  return op.rfind(pattern, 0) == 0 && (op.size() == pattern.size() || op[pattern.size()] == '.');
}

size_t count(const std::multiset<std::string>& ops, const std::string& pattern) {
  size_t n = 0;
  for (const std::string& op : ops) n += matches(op, pattern);
  return n;
}

}  // namespace

TEST_CASE("opcode parsing reads cuobjdump's instruction lines") {
  const std::string sample =
      "        Function : _Z6kernelv\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;                /* 0x00000a00ff017b82 */\n"
      "        /*0010*/              @!P0 HGMMA.64x16x16.F32 R24, gdesc[UR4], R24 ;  /* 0x000000000418 */\n"
      "                                                                             /* 0x000fe20008000000 */\n"
      "        /*0020*/                   SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR4], RZ ;\n";
  const auto ops = opcodes(sample);
  CHECK(ops == std::multiset<std::string>{"LDC", "HGMMA.64x16x16.F32", "SYNCS.ARRIVE.TRANS64.A1T0"});
  CHECK(count(ops, "HGMMA") == 1);
  CHECK(count(ops, "SYNCS.ARRIVE") == 1);
  CHECK(count(ops, "SYNC") == 0);  // a prefix must end at a '.'
  CHECK(count(ops, "LDL") == 0);
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
    const auto ops = opcodes(disassemble(library));
    INFO(name << ": " << ops.size() << " instructions in " << library);
    REQUIRE(ops.size() > 0);
    for (const SassRule& r : rules) {
      if (r.version != name) continue;
      for (const std::string& op : r.required) {
        INFO("required " << op);
        CHECK(count(ops, op) > 0);
      }
      for (const std::string& op : r.forbidden) {
        INFO("forbidden " << op);
        CHECK(count(ops, op) == 0);
      }
    }
    for (const std::string& op : forbidden_everywhere) {
      INFO("forbidden everywhere: " << op);
      CHECK(count(ops, op) == 0);
    }
  }
}
