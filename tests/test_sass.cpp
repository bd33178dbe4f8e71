// SASS is evidence: each version's kernels, disassembled with cuobjdump, contain the instructions
// its technique claims and none it must not have. The claims live beside each kernel, in
// <version>/sass.txt, one rule a line:
//   require OP              OP appears at least once
//   forbid OP               OP never appears
//   forbid_in_mma_loop OP   OP never appears in the loop around the HGMMAs
//   require_in_mma_loop OP  OP appears in the loop around the HGMMAs of at least one kernel
//   require_operand OP TEXT OP appears with TEXT in its operands at least once
// and `#` starts a comment line. A new version adds its own sass.txt; nothing here changes.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "matmul_versions.h"

#ifndef MATMUL_SOURCE_DIR
#error "MATMUL_SOURCE_DIR (the project's source directory, holding <version>/sass.txt) must be defined"
#endif

namespace {

// An opcode pattern matches an opcode equal to it or starting with it followed by '.':
// "HGMMA" matches "HGMMA.64x128x16.F32", "SYNCS.ARRIVE" matches "SYNCS.ARRIVE.TRANS64.A1T0".
struct SassRule {
  std::vector<std::string> required;  // each must appear at least once
  std::vector<std::string> forbidden;  // none may appear
  std::vector<std::string> forbidden_in_mma_loop;  // none may appear in the loop around the HGMMAs
  std::vector<std::string> required_in_mma_loop;  // each must appear in some kernel's loop around the HGMMAs
  std::vector<std::pair<std::string, std::string>> required_operand;  // (OP, TEXT): OP with TEXT in its operands
};

// A sass.txt read: `rule`, or why it could not be read in `error` (naming the file and the line).
struct LoadedRule {
  SassRule rule;
  std::string error;
};

// Parses the text of a sass.txt; `where` names it in the error messages.
LoadedRule parse_rules(std::istream& text, const std::string& where) {
  LoadedRule out;
  int number = 0;
  for (std::string line; std::getline(text, line);) {
    ++number;
    std::istringstream words(line);
    std::string keyword, op, text, extra;
    words >> keyword;
    if (keyword.empty() || keyword[0] == '#') continue;
    const std::string at = where + ":" + std::to_string(number) + ": ";
    if (keyword == "require_operand") {
      words >> op >> text >> extra;
      if (text.empty() || !extra.empty()) {
        out.error = at + "'" + line + "' is not require_operand, one opcode and one operand text, e.g. " +
                    "`require_operand UTMALDG.2D desc[`";
        return out;
      }
      out.rule.required_operand.emplace_back(op, text);
      continue;
    }
    words >> op >> extra;
    std::vector<std::string>* list = keyword == "require"               ? &out.rule.required
                                     : keyword == "forbid"              ? &out.rule.forbidden
                                     : keyword == "forbid_in_mma_loop"  ? &out.rule.forbidden_in_mma_loop
                                     : keyword == "require_in_mma_loop" ? &out.rule.required_in_mma_loop
                                                                        : nullptr;
    if (list == nullptr) {
      out.error =
          at + "unknown keyword '" + keyword +
          "' (known: require, forbid, forbid_in_mma_loop, require_in_mma_loop, require_operand)";
      return out;
    }
    if (op.empty() || !extra.empty()) {
      out.error = at + "'" + line + "' is not one keyword and one opcode, e.g. `require HGMMA`";
      return out;
    }
    list->push_back(op);
  }
  if (out.rule.required.empty())
    out.error = where + ": no `require` line; a version's SASS rules claim at least one instruction it must contain";
  return out;
}

std::string rules_path(const std::string& version) {
  return std::string(MATMUL_SOURCE_DIR) + "/" + version + "/sass.txt";
}

LoadedRule load_rules(const std::string& version) {
  const std::string path = rules_path(version);
  std::ifstream file(path);
  if (!file) return {{}, path + ": missing; every version keeps its SASS rules in sass.txt beside its kernel.cu"};
  return parse_rules(file, path);
}

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
  std::string op;  // "HGMMA.64x16x16.F32"
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
    if (functions.empty() || open == std::string::npos || line.compare(open, 2, "/*") != 0 ||
        close == std::string::npos)
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

// Reads of the SM clock or the global timer: only the trace and bounded-wait builds make them.
size_t timer_reads(const std::vector<Kernel>& functions) {
  size_t n = 0;
  for (const Kernel& f : functions)
    for (const Instruction& in : f)
      n += in.operands.find("SR_CLOCK") != std::string::npos || in.operands.find("SR_GLOBALTIMER") != std::string::npos;
  return n;
}

size_t count(const std::vector<Kernel>& functions, const std::string& pattern) {
  size_t n = 0;
  for (const Kernel& f : functions)
    for (const Instruction& in : f) n += matches(in.op, pattern);
  return n;
}

// How many `pattern` instructions have `text` in their operands.
size_t count_with_operand(const std::vector<Kernel>& functions, const std::string& pattern, const std::string& text) {
  size_t n = 0;
  for (const Kernel& f : functions)
    for (const Instruction& in : f) n += matches(in.op, pattern) && in.operands.find(text) != std::string::npos;
  return n;
}

// How many `pattern` instructions a kernel's main loop holds: the loop is the range from the
// target of the first backward branch after the last HGMMA (a branch to at or before the first
// HGMMA) to that branch; without such a branch, the range from the first HGMMA to the last.
// QGMMA, FP8's form (v10), counts as an HGMMA.
size_t count_in_mma_loop(const Kernel& f, const std::string& pattern) {
  size_t first = f.size(), last = 0;
  for (size_t i = 0; i < f.size(); ++i)
    if (matches(f[i].op, "HGMMA") || matches(f[i].op, "QGMMA")) first = std::min(first, i), last = i;
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
  CHECK(count_with_operand(functions, "HGMMA", "gsb0") == 1);  // 0x30's operands, not 0x20's
  CHECK(count_with_operand(functions, "BAR.SYNC", "gsb0") == 0);
  CHECK(count_in_mma_loop(f, "BAR.SYNC") == 1);  // 0x50, inside the loop 0x20-0x60; not 0x10 or 0x70
  CHECK(count_in_mma_loop(functions[1], "BAR.SYNC") == 0);  // no HGMMA, no loop
}

TEST_CASE("sass.txt parsing: rules by keyword, comments skipped, bad files refused with the line") {
  {
    std::istringstream text(
        "# what this file is\n\nrequire HGMMA\n  forbid FFMA\nforbid_in_mma_loop BAR.SYNC\nrequire_in_mma_loop STSM\n# "
        "forbid X\nrequire_operand UTMALDG.2D desc[\n");
    const LoadedRule r = parse_rules(text, "v9/sass.txt");
    CHECK(r.error.empty());
    CHECK(r.rule.required == std::vector<std::string>{"HGMMA"});
    CHECK(r.rule.forbidden == std::vector<std::string>{"FFMA"});
    CHECK(r.rule.forbidden_in_mma_loop == std::vector<std::string>{"BAR.SYNC"});
    CHECK(r.rule.required_in_mma_loop == std::vector<std::string>{"STSM"});
    CHECK(r.rule.required_operand == std::vector<std::pair<std::string, std::string>>{{"UTMALDG.2D", "desc["}});
  }
  {
    std::istringstream text("require HGMMA\nrequire_operand UTMALDG.2D\n");
    CHECK(parse_rules(text, "v9/sass.txt").error.find("v9/sass.txt:2: ") == 0);
  }
  {
    std::istringstream text("require HGMMA\nforbidden FFMA\n");
    const LoadedRule r = parse_rules(text, "v9/sass.txt");
    CHECK(r.error.find("v9/sass.txt:2: unknown keyword 'forbidden'") == 0);
  }
  {
    std::istringstream text("require HGMMA FFMA\n");
    CHECK(parse_rules(text, "v9/sass.txt").error.find("v9/sass.txt:1: ") == 0);
  }
  {
    std::istringstream text("# only comments\nforbid FFMA\n");
    CHECK(parse_rules(text, "v9/sass.txt").error.find("no `require` line") != std::string::npos);
  }
  CHECK(load_rules("v9_no_such_version").error.find("missing") != std::string::npos);
}

TEST_CASE("every registered version has a sass.txt with at least one required instruction") {
  for (const auto& [name, library] : matmul::version_libraries()) {
    const LoadedRule r = load_rules(name);
    INFO(name << ": " << r.error);
    CHECK(r.error.empty());
  }
}

TEST_CASE("each version's SASS has the instructions of its technique and no local memory or timer read") {
  for (const auto& [name, library] : matmul::version_libraries()) {
    const LoadedRule loaded = load_rules(name);
    INFO(name << "'s rules: " << (loaded.error.empty() ? rules_path(name) : loaded.error));
    REQUIRE(loaded.error.empty());
    const SassRule& r = loaded.rule;
    const std::vector<Kernel> functions = kernels(disassemble(library));
    INFO(name << ": " << functions.size() << " kernels in " << library);
    REQUIRE(functions.size() > 0);
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
    for (const std::string& op : r.required_in_mma_loop) {
      INFO("required in the loop around the HGMMAs of at least one kernel: " << op);
      CHECK(std::any_of(functions.begin(), functions.end(),
                        [&](const Kernel& f) { return count_in_mma_loop(f, op) > 0; }));
    }
    for (const auto& [op, text] : r.required_operand) {
      INFO("required " << op << " with " << text << " in its operands");
      CHECK(count_with_operand(functions, op, text) > 0);
    }
    for (const std::string& op : forbidden_everywhere) {
      INFO("forbidden everywhere: " << op);
      CHECK(count(functions, op) == 0);
    }
    INFO("the timeline marks (common/hopper/trace.cuh) compile to nothing outside the trace build");
    CHECK(timer_reads(functions) == 0);
  }
}
