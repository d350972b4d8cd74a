// The configuration step of the LID-assignment stage (seed 002 §4): the
// paper's worked example (Figures 6 and 8), split detection (Definition 1,
// parallel links included), and properties of every heuristic on random path
// sets: configurations contain no split pair and form a minimal
// configuration set (Definition 4).
#include "lidassign/path_configs.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <string>

using namespace ibsm;
using namespace ibsm::lidassign;
using topology::DestinationPaths;
using topology::NodeId;
using topology::PairPath;
using topology::PairPaths;
using topology::PathHop;
using topology::PortRef;

namespace {

constexpr ConfigHeuristic kAll[] = {ConfigHeuristic::greedy, ConfigHeuristic::split_merge_s,
                                    ConfigHeuristic::split_merge_l, ConfigHeuristic::color_s,
                                    ConfigHeuristic::color_l};

PathHop hop(std::uint32_t sw, std::uint8_t out) { return {NodeId{sw}, PortNum{out}}; }

PairPath path(std::uint32_t src_node, std::vector<PathHop> hops) {
    return {PortRef{NodeId{src_node}, PortNum{1}}, std::move(hops)};
}

// Seed 002 Figure 6: destination m0 behind s0; switches s0..s5 are NodeIds
// 0..5, machines m1..m4 NodeIds 11..14. Out ports: s4: 1 -> s1, 2 -> s3;
// s5: 1 -> s2, 2 -> s3; s3: 1 -> s2, 2 -> s1; s1, s2: 1 -> s0; s0: 1 -> m0.
//   p1 = m1 s4 s1 s0 m0, p2 = m2 s4 s3 s2 s0 m0,
//   p3 = m4 s5 s2 s0 m0, p4 = m3 s5 s3 s1 s0 m0.
DestinationPaths figure6() {
    DestinationPaths d;
    d.dst = PortRef{NodeId{10}, PortNum{1}};
    d.paths = {
        path(11, {hop(4, 1), hop(1, 1), hop(0, 1)}),            // p1
        path(12, {hop(4, 2), hop(3, 1), hop(2, 1), hop(0, 1)}), // p2
        path(13, {hop(5, 1), hop(2, 1), hop(0, 1)}),            // p3
        path(14, {hop(5, 2), hop(3, 2), hop(1, 1), hop(0, 1)}), // p4
    };
    return d;
}

std::size_t distinct(const DestinationConfigs& c) {
    return std::set<std::uint16_t>(c.of_path.begin(), c.of_path.end()).size();
}

// Definition 2 and Definition 4 checked by brute force over all pairs (plain
// loops, one assertion per property: Catch assertions per pair are slow).
void check_minimal_configuration_set(const DestinationPaths& d, const DestinationConfigs& c) {
    REQUIRE(c.of_path.size() == d.paths.size());
    REQUIRE(distinct(c) == c.count);
    REQUIRE(std::all_of(c.of_path.begin(), c.of_path.end(), [&](std::uint16_t x) { return x < c.count; }));
    std::vector<std::vector<bool>> split_between(c.count, std::vector<bool>(c.count, false));
    std::string shared;
    for (std::size_t i = 0; i < d.paths.size() && shared.empty(); ++i)
        for (std::size_t j = i + 1; j < d.paths.size(); ++j) {
            if (!paths_split(d.paths[i], d.paths[j]))
                continue;
            if (c.of_path[i] == c.of_path[j]) {
                shared = "paths " + std::to_string(i) + " and " + std::to_string(j) + " split but share configuration " +
                         std::to_string(c.of_path[i]);
                break;
            }
            split_between[c.of_path[i]][c.of_path[j]] = true;
            split_between[c.of_path[j]][c.of_path[i]] = true;
        }
    INFO(shared);
    REQUIRE(shared.empty());
    std::string mergeable;
    for (std::uint16_t a = 0; a < c.count && mergeable.empty(); ++a)
        for (std::uint16_t b = a + 1; b < c.count; ++b)
            if (!split_between[a][b]) {
                mergeable = "configurations " + std::to_string(a) + " and " + std::to_string(b) + " could be merged";
                break;
            }
    INFO(mergeable);
    REQUIRE(mergeable.empty());
}

// A random loop-free path set to one destination: `switches` switches with
// up to `ports` out ports each, every path a random walk without repeats that
// ends at switch 0 (cabled to the destination by port 1). Out ports are
// drawn per (switch, next switch) with a few parallel links, so paths that
// take the same next switch by different cables split.
DestinationPaths random_paths(std::mt19937& rng, std::uint32_t switches, std::size_t count) {
    DestinationPaths d;
    d.dst = PortRef{NodeId{1000}, PortNum{1}};
    std::uniform_int_distribution<std::uint32_t> any_sw(0, switches - 1);
    std::uniform_int_distribution<int> len(1, 6);
    std::uniform_int_distribution<int> cable(0, 1);
    for (std::size_t i = 0; i < count; ++i) {
        std::vector<std::uint32_t> seq;
        const int l = len(rng);
        for (int k = 0; k < l; ++k) {
            const auto s = any_sw(rng);
            if (s != 0 && std::find(seq.begin(), seq.end(), s) == seq.end())
                seq.push_back(s);
        }
        seq.push_back(0);
        std::vector<PathHop> hops;
        for (std::size_t k = 0; k + 1 < seq.size(); ++k)
            hops.push_back(hop(seq[k], static_cast<std::uint8_t>(1 + 2 * seq[k + 1] + cable(rng))));
        hops.push_back(hop(0, 1));
        d.paths.push_back(path(static_cast<std::uint32_t>(2000 + i), std::move(hops)));
    }
    return d;
}

} // namespace

TEST_CASE("paths_split follows Definition 1", "[path_configs]") {
    const auto d = figure6();
    const auto& p = d.paths;
    CHECK(paths_split(p[0], p[1]));  // s4
    CHECK(paths_split(p[1], p[3]));  // s3
    CHECK(paths_split(p[2], p[3]));  // s5
    CHECK_FALSE(paths_split(p[0], p[2])); // only s0, same port
    CHECK_FALSE(paths_split(p[0], p[3])); // join at s1, same ports after
    CHECK_FALSE(paths_split(p[1], p[2])); // join at s2
    CHECK(paths_split(p[1], p[0]));  // symmetric

    SECTION("parallel links: same switch, same next switch, different cable = split") {
        const auto a = path(1, {hop(7, 3), hop(8, 1)});
        const auto b = path(2, {hop(7, 4), hop(8, 1)}); // ports 3 and 4 both cabled to switch 8
        CHECK(paths_split(a, b));
        const auto c = path(3, {hop(7, 3), hop(8, 1)});
        CHECK_FALSE(paths_split(a, c));
    }
    SECTION("a switch-originated path starts at its switch") {
        const auto from_switch = PairPath{PortRef{NodeId{4}, PortNum{0}}, {hop(4, 2), hop(3, 1), hop(2, 1), hop(0, 1)}};
        CHECK_FALSE(paths_split(from_switch, p[1]));
        CHECK(paths_split(from_switch, p[0]));
    }
}

TEST_CASE("seed 002 Figure 6: greedy needs 3 LIDs, color/L 2", "[path_configs]") {
    const auto d = figure6();

    const auto g = partition_paths(d, ConfigHeuristic::greedy);
    CHECK(g.count == 3);
    CHECK(g.of_path == std::vector<std::uint16_t>{0, 1, 0, 2}); // C1={p1,p3}, C2={p2}, C3={p4}

    // Figure 8: degrees p1 1, p2 2, p3 1, p4 2. color/L colours p2 first,
    // drops p1 and p4, takes p3: C1={p2,p3}, then C2={p1,p4}.
    const auto l = partition_paths(d, ConfigHeuristic::color_l);
    CHECK(l.count == 2);
    CHECK(l.of_path == std::vector<std::uint16_t>{1, 0, 0, 1});

    // color/S starts from p1 (degree 1), takes p3, and is left with p2, p4
    // which split: 3 configurations, the paper's "consistently worse".
    const auto s = partition_paths(d, ConfigHeuristic::color_s);
    CHECK(s.count == 3);

    for (auto h : kAll) {
        INFO(to_string(h));
        check_minimal_configuration_set(d, partition_paths(d, h));
    }
}

TEST_CASE("split-merge on Figure 6: split phase then greedy merge", "[path_configs]") {
    // Uses: s0 by 4 paths, every other switch by 2 (ties: first appearance,
    // s4 s1 s3 s2 s5). Either order splits {p1..p4} at s4 into {p1,p3,p4}
    // (p1's port 1 wins the tie; p3, p4 do not cross s4 and stay) and {p2},
    // then at s5 into {p1,p3} and {p4}; s1, s2, s3, s0 split nothing left.
    // Merging {p1,p3}, {p2}, {p4} greedily: p2 splits with p1, p4 with p3
    // and with p2, so 3 configurations.
    const auto d = figure6();
    for (auto h : {ConfigHeuristic::split_merge_s, ConfigHeuristic::split_merge_l}) {
        INFO(to_string(h));
        const auto c = partition_paths(d, h);
        CHECK(c.of_path == std::vector<std::uint16_t>{0, 1, 0, 2});
        check_minimal_configuration_set(d, c);
    }
}

TEST_CASE("heuristic names round-trip", "[path_configs]") {
    for (auto h : kAll)
        CHECK(config_heuristic_from(to_string(h)) == h);
    CHECK(config_heuristic_from("color-l") == ConfigHeuristic::color_l);
    CHECK_FALSE(config_heuristic_from("colour-l").has_value());
}

TEST_CASE("no paths, one path, identical paths", "[path_configs]") {
    DestinationPaths empty;
    for (auto h : kAll) {
        const auto c = partition_paths(empty, h);
        CHECK(c.count == 0);
        CHECK(c.of_path.empty());
    }
    DestinationPaths same;
    for (std::uint32_t i = 0; i < 5; ++i)
        same.paths.push_back(path(20 + i, {hop(1, 2), hop(0, 1)}));
    for (auto h : kAll) {
        INFO(to_string(h));
        const auto c = partition_paths(same, h);
        CHECK(c.count == 1);
    }
}

TEST_CASE("property: every heuristic yields a minimal configuration set on random path sets", "[path_configs]") {
    std::mt19937 rng(14);
    for (int round = 0; round < 40; ++round) {
        const auto switches = static_cast<std::uint32_t>(4 + round % 12);
        const auto d = random_paths(rng, switches, 10 + static_cast<std::size_t>(round) * 3);
        for (auto h : kAll) {
            INFO("round " << round << " heuristic " << to_string(h));
            check_minimal_configuration_set(d, partition_paths(d, h));
        }
    }
}

TEST_CASE("partition_all: per destination, independent of the thread count", "[path_configs]") {
    std::mt19937 rng(7);
    PairPaths all;
    all.engine = "test";
    for (int i = 0; i < 23; ++i)
        all.destinations.push_back(random_paths(rng, 9, 40));
    for (auto h : kAll) {
        INFO(to_string(h));
        const auto one = partition_all(all, h, 1);
        const auto four = partition_all(all, h, 4);
        REQUIRE(one.size() == all.destinations.size());
        REQUIRE(four.size() == one.size());
        for (std::size_t i = 0; i < one.size(); ++i) {
            CHECK(one[i].of_path == four[i].of_path);
            CHECK(one[i].count == four[i].count);
            const auto single = partition_paths(all.destinations[i], h);
            CHECK(single.of_path == one[i].of_path);
        }
    }
}

TEST_CASE("color/L needs no more configurations than color/S on average over random sets", "[path_configs]") {
    // The paper's ordering (Tables 1-2) as a statistical property: summed over
    // many random destinations, largest-degree-first colouring does not lose
    // to smallest-degree-first.
    std::mt19937 rng(2007);
    std::size_t l = 0, s = 0;
    for (int i = 0; i < 60; ++i) {
        const auto d = random_paths(rng, 12, 60);
        l += partition_paths(d, ConfigHeuristic::color_l).count;
        s += partition_paths(d, ConfigHeuristic::color_s).count;
    }
    CHECK(l < s);
}
