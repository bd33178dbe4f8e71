// Stream-K's schedule (common/hopper/stream_k.cuh), walked on the host for every cluster of many
// plans: every K-step of every unit is computed exactly once; each unit is whole, or one finisher
// ends at its last K-step and the contributors it waits for are exactly the clusters that computed
// the rest of it, of lower index, each contributing once at most, before any piece it finishes;
// and the plan's choices of clusters and split.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <map>
#include <set>
#include <vector>

#include "common/hopper/stream_k.cuh"

using Scheduler = hopper::StreamKScheduler<8, 2, 1>;

namespace {

// Every cluster's work, in its order.
std::vector<std::vector<hopper::Work>> walk(const Scheduler& s) {
  std::vector<std::vector<hopper::Work>> all(size_t(s.clusters));
  for (int c = 0; c < s.clusters; ++c)
    for (hopper::Work w = s.first(c); w.unit != hopper::no_more_tiles; w = s.next(w, c)) all[size_t(c)].push_back(w);
  return all;
}

}  // namespace

TEST_CASE("stream-K: each K-step once; each split unit one finisher, whose contributors are lower clusters") {
  const int units_m = GENERATE(1, 2, 7, 16, 17, 33);
  const int units_n = GENERATE(1, 3, 8, 32);
  const int k_steps = GENERATE(1, 2, 9, 64, 224);
  const int resident = GENERATE(1, 66, 132);
  const int max_pieces = GENERATE(1, 2, 4);
  const Scheduler s = Scheduler::plan(units_m, units_n, k_steps, resident, true, 4, max_pieces);
  INFO(units_m << " x " << units_n << " units of " << k_steps << " steps on " << resident << " clusters: "
               << s.whole_units << " whole, " << s.split_units << " split over " << s.clusters);
  REQUIRE(s.clusters >= 1);
  REQUIRE(s.clusters <= resident);
  const int units = units_m * units_n;
  std::vector<std::vector<int>> covered(size_t(units), std::vector<int>(size_t(k_steps), 0));
  std::map<int, int> finisher;  // split unit -> its finisher cluster
  std::map<int, std::set<int>> contributors;  // split unit -> the clusters that computed part of it
  const std::vector<std::vector<hopper::Work>> work = walk(s);
  for (int c = 0; c < s.clusters; ++c) {
    int contributions = 0;
    bool split_before = false;  // a split piece came earlier in this cluster's order
    for (const hopper::Work& w : work[size_t(c)]) {
      const bool split = w.k_begin > 0 || w.k_end < k_steps;
      if (w.k_end < k_steps) CHECK_FALSE(split_before);  // a contribution is the first split piece, before any wait
      split_before = split_before || split;
      REQUIRE(w.unit >= 0);
      REQUIRE(w.unit < units);
      REQUIRE(w.k_begin < w.k_end);
      for (int k = w.k_begin; k < w.k_end; ++k) ++covered[size_t(w.unit)][size_t(k)];
      if (w.k_end < k_steps) {
        contributors[w.unit].insert(c);
        ++contributions;
      } else if (w.k_begin > 0) {
        CHECK(finisher.count(w.unit) == 0);
        finisher[w.unit] = c;
      }
    }
    CHECK(contributions <= 1);  // one slot per CTA
    if (s.whole_units == 0) CHECK(work[size_t(c)].size() == 1);  // split-K: one piece, shares on unit boundaries
  }
  for (int u = 0; u < units; ++u)
    for (int k = 0; k < k_steps; ++k) REQUIRE(covered[size_t(u)][size_t(k)] == 1);
  for (const auto& [unit, from] : contributors) {
    REQUIRE(finisher.count(unit) == 1);
    std::set<int> listed;
    for (int c = s.next_contributor(unit, finisher[unit]); c >= 0; c = s.next_contributor(unit, c)) listed.insert(c);
    CHECK(listed == from);
    CHECK(*from.rbegin() < finisher[unit]);  // the finisher waits on clusters of lower index only
  }
  for (const auto& [unit, c] : finisher) CHECK(contributors.count(unit) == 1);
  if (s.whole_units == 0)  // split-K: at most max_pieces pieces per unit, so at most max_pieces - 1 contributors
    for (const auto& [unit, from] : contributors) CHECK(int(from.size()) <= max_pieces - 1);
}

TEST_CASE("stream-K plan: whole units without scratch or with a nearly full last wave; split otherwise") {
  struct Case {
    int units_m, units_n, k_steps, resident;
    bool split;
    int max_pieces;
    int whole_units, split_units, clusters;  // the plan expected
    const char* why;
  };
  const Case cases[] = {
      {16, 1, 64, 132, true, 4, 0, 16, 64, "one wave: split-K, each unit in max_pieces pieces of 16 steps"},
      {16, 1, 64, 132, true, 1, 16, 0, 16, "max_pieces 1: never split"},
      {4, 1, 8, 132, true, 4, 0, 4, 8, "8 steps, min_share 4: two pieces per unit, not four"},
      {100, 1, 64, 132, true, 4, 100, 0, 100, "132 / 100 leaves one piece per unit: whole"},
      {32, 1, 1, 132, true, 4, 32, 0, 32, "K of one step: too short to split"},
      {16, 1, 64, 132, false, 4, 16, 0, 16, "no scratch: v8's stride, no more clusters than units"},
      {32, 32, 128, 66, true, 4, 990, 34, 66, "8192^3 in pairs of 128 x 256 tiles: the last wave of 34 stream-K over 66"},
      {8, 16, 224, 66, true, 4, 128, 0, 66, "a last wave of 62 of 66 is nearly full: whole"},
  };
  for (const Case& c : cases) {
    INFO(c.why);
    const Scheduler s = Scheduler::plan(c.units_m, c.units_n, c.k_steps, c.resident, c.split, 4, c.max_pieces);
    CHECK(s.whole_units == c.whole_units);
    CHECK(s.split_units == c.split_units);
    CHECK(s.clusters == c.clusters);
  }
}
