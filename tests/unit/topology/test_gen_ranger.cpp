#include "topology/gen_pgft.h"
#include "topology/gen_ranger.h"
#include "topology/netfile_reader.h"
#include "topology/netfile_writer.h"

#include "fabric_view.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

using namespace ibsm;
using namespace ibsm::topology;
using namespace ibsm::topology::test;

namespace {

// Where a node sits, decoded from the GUID scheme documented in gen_ranger.h
// and gen_common.h, not from the generator's code: level 0 = host, 1 = NEM,
// 1 + l = core level l.
struct Where {
    unsigned level;
    unsigned core;       // core switches only
    std::uint64_t index; // within its level (and core)
};
Where where(Guid g)
{
    const std::uint64_t v = g.value();
    if ((v >> 32) == 0x0002c903) return {0, 0, (v >> 8) & 0xffffff};
    REQUIRE((v >> 32) == 0x0002c902);
    const unsigned family = static_cast<unsigned>((v >> 24) & 0xff);
    REQUIRE(family >= 0xc0);
    REQUIRE(family <= 0xd0);
    const std::uint64_t index = v & 0xffffff;
    if (family == 0xc0) return {1, 0, index};
    return {1 + family - 0xc0, static_cast<unsigned>(index >> 20), index & 0xfffff};
}

// |level l of a PGFT| = prod_{j>l} m_j * prod_{j<=l} w_j (seed 003 §II-B).
std::uint64_t pgft_level_size(const PgftParams& p, unsigned l)
{
    std::uint64_t n = 1;
    for (unsigned j = 1; j <= p.m.size(); ++j) n *= j > l ? p.m[j - 1] : p.w[j - 1];
    return n;
}

struct Counts {
    std::uint64_t hosts, nems, core_switches, links;
};

// The expected sizes, from the parameters alone.
Counts expected(const MulticoreParams& p)
{
    const unsigned h = static_cast<unsigned>(p.core.m.size());
    std::uint64_t per_core = 0, core_links = 0;
    for (unsigned l = 1; l <= h; ++l) per_core += pgft_level_size(p.core, l);
    for (unsigned l = 1; l < h; ++l) core_links += pgft_level_size(p.core, l) * p.core.w[l] * p.core.p[l];
    const std::uint64_t hosts = std::uint64_t{p.nems} * p.hosts_per_nem;
    return {hosts, p.nems, p.cores * per_core,
            hosts + std::uint64_t{p.nems} * p.cores * p.uplinks_per_core + p.cores * core_links};
}

void check_counts(const MulticoreParams& p, const Fabric& f)
{
    const auto e = expected(p);
    std::map<unsigned, std::uint64_t> per_level;
    for (const Node& n : f.nodes()) ++per_level[where(n.guid).level];
    CHECK(f.ca_count() == e.hosts);
    CHECK(per_level[0] == e.hosts);
    CHECK(per_level[1] == e.nems);
    CHECK(f.switch_count() == e.nems + e.core_switches);
    CHECK(f.link_count() == e.links);
    const MulticoreShape shape(p);
    CHECK(shape.host_count() == e.hosts);
    CHECK(shape.switch_count() == e.nems + e.core_switches);
    CHECK(shape.link_count() == e.links);
}

// Per NEM: its hosts on the first ports, then U links to distinct leaves of
// every core; NEMs of one group (m_1 consecutive NEMs) share their leaves.
void check_nems(const MulticoreParams& p, const Fabric& f)
{
    const unsigned m1 = p.core.m[0];
    std::map<std::uint64_t, std::set<std::pair<unsigned, std::uint64_t>>> leaves_of; // NEM -> (core, leaf)
    for (const Node& n : f.nodes()) {
        const Where w = where(n.guid);
        if (w.level != 1) continue;
        INFO(n.description);
        CHECK(n.num_ports() == p.hosts_per_nem + p.cores * p.uplinks_per_core);
        std::map<unsigned, unsigned> per_core;
        for (std::uint8_t port = 1; port <= n.num_ports(); ++port) {
            auto r = n.port(PortNum(port)).remote;
            REQUIRE(r);
            const Node& peer = f.node(r->node);
            if (port <= p.hosts_per_nem) {
                CHECK(peer.type == NodeType::ca);
                CHECK(where(peer.guid).index == w.index * p.hosts_per_nem + port - 1);
                continue;
            }
            const Where pw = where(peer.guid);
            REQUIRE(pw.level == 2); // a core leaf
            ++per_core[pw.core];
            CHECK(r->port.value() == w.index % m1 + 1);
            leaves_of[w.index].insert({pw.core, pw.index});
        }
        CHECK(per_core.size() == p.cores);
        for (auto [core, links] : per_core) CHECK(links == p.uplinks_per_core);
        CHECK(leaves_of[w.index].size() == std::size_t{p.cores} * p.uplinks_per_core);
    }
    REQUIRE(leaves_of.size() == p.nems);
    for (const auto& [nem, leaves] : leaves_of) {
        CHECK(leaves == leaves_of.at(nem - nem % m1));           // same set as the group's first NEM
        if (nem >= m1) CHECK(leaves != leaves_of.at(nem - m1)); // and not the previous group's
        for (auto [core, leaf] : leaves) CHECK(leaf / p.uplinks_per_core == nem / m1);
    }
}

// Core-internal cables (both ends core switches) are exactly those of
// generate_pgft on the core's parameters, once per core with the GUIDs
// renamed, and never join two cores.
void check_cores(const MulticoreParams& p, const Fabric& f)
{
    const Fabric pgft = generate_pgft(p.core);
    std::set<LinkView> want;
    for (unsigned c = 0; c < p.cores; ++c)
        for (const auto& [ga, pa, gb, pb] : links_by_guid(pgft)) {
            if ((ga >> 32) == 0x0002c903 || (gb >> 32) == 0x0002c903) continue; // the PGFT's hosts
            auto rename = [&](std::uint64_t g) {
                const std::uint64_t level = (g >> 24) & 0xff, index = g & 0xffffff;
                return 0x0002c90200000000ull | ((0xc0 + level) << 24) | (std::uint64_t{c} << 20) | index;
            };
            auto a = std::make_pair(rename(ga), pa), b = std::make_pair(rename(gb), pb);
            if (b < a) std::swap(a, b);
            want.emplace(a.first, a.second, b.first, b.second);
        }
    std::set<LinkView> got;
    for (const auto& link : links_by_guid(f)) {
        const Where a = where(Guid(std::get<0>(link))), b = where(Guid(std::get<2>(link)));
        if (a.level < 2 || b.level < 2) continue;
        CHECK(a.core == b.core);
        got.insert(link);
    }
    CHECK(got.size() == want.size());
    CHECK(got == want);
    // Same port counts as the PGFT's switches (down ports first, all of them
    // present even where no NEM is plugged in).
    std::map<unsigned, unsigned> ports_at_level;
    for (const Node& n : pgft.nodes())
        if (n.is_switch()) ports_at_level[static_cast<unsigned>((n.guid.value() >> 24) & 0xff)] = n.num_ports();
    for (const Node& n : f.nodes()) {
        const Where w = where(n.guid);
        if (w.level >= 2) CHECK(n.num_ports() == ports_at_level.at(w.level - 1));
    }
}

MulticoreParams small()
{
    MulticoreParams p;
    p.cores = 2;
    p.core = PgftParams{{4, 2, 4}, {1, 2, 2}, {1, 1, 1}, false}; // leaves: 8, 4 NEM ports each
    p.nems = 7;                                                  // groups of 4: one full, one of 3
    p.hosts_per_nem = 3;
    p.uplinks_per_core = 2;
    return p;
}

} // namespace

TEST_CASE("Ranger defaults: two 3456-port cores, 328 NEMs, 3936 hosts")
{
    const MulticoreParams p;
    const Fabric f = generate_multicore(p);
    // The figures the brief (and seed 000's "1440 switches") give.
    CHECK(f.ca_count() == 3936);
    CHECK(f.switch_count() == 1440 + 328);
    CHECK(f.node_count() == 3936 + 1440 + 328);
    CHECK(f.link_count() == 3936 + 328 * 12 + 2 * (288 * 12 + 288 * 12));
    check_counts(p, f);
    check_nems(p, f);
    check_cores(p, f);
    // Every switch is a 24-port chip.
    for (const Node& n : f.nodes())
        if (n.is_switch()) CHECK(n.num_ports() == 24);
    // 27 full groups and 4 NEMs of a 28th: leaves 0..167 carry NEMs, 162..167 only 4.
    const MulticoreShape shape(p);
    CHECK(shape.group_count() == 48);
    CHECK(shape.core_leaf_of(327, 5) == 167);
}

TEST_CASE("Multi-core fabrics: counts, NEM wiring and core cabling for several shapes")
{
    std::vector<MulticoreParams> cases;
    cases.push_back(small());
    auto three = small();
    three.cores = 3;
    three.nems = 16; // fills all 4 groups
    cases.push_back(three);
    auto parallel = small();
    parallel.core = PgftParams{{3, 2, 2}, {1, 2, 1}, {1, 2, 1}, false}; // parallel cables inside the core
    parallel.uplinks_per_core = 3; // 4 leaves: one group of 3 NEMs
    parallel.nems = 3;
    cases.push_back(parallel);
    auto flat = small();
    flat.cores = 1;
    flat.core = PgftParams{{6}, {1}, {1}, false}; // a core of one switch
    flat.uplinks_per_core = 1;
    flat.nems = 5;
    cases.push_back(flat);
    for (const auto& p : cases) {
        INFO(p.cores << " cores, " << p.core.m.size() << " core levels, " << p.nems << " NEMs");
        const Fabric f = generate_multicore(p);
        check_counts(p, f);
        check_nems(p, f);
        check_cores(p, f);
    }
}

TEST_CASE("Multi-core numbering: hosts first, unique readable names, deterministic, survives a net file")
{
    const auto p = small();
    const Fabric f = generate_multicore(p);
    CHECK(f.node(NodeId{0}).type == NodeType::ca);
    CHECK(f.node(NodeId{0}).description == "host-0000");
    REQUIRE(first_cabled_ca(f) == NodeId{0});
    for (std::uint32_t i = 0; i < f.ca_count(); ++i) {
        auto nem = f.remote({NodeId{i}, PortNum(1)});
        REQUIRE(nem);
        CHECK(f.node(nem->node).description == "nem-000" + std::to_string(i / 3));
        CHECK(nem->port == PortNum(static_cast<std::uint8_t>(i % 3 + 1)));
    }
    std::set<std::string> names;
    for (const Node& n : f.nodes()) names.insert(n.description);
    CHECK(names.size() == f.node_count());
    CHECK_NOTHROW(by_description(f, "core0-leaf-L1-0007"));
    CHECK_NOTHROW(by_description(f, "core1-spine-L2-0007"));
    CHECK_NOTHROW(by_description(f, "core1-top-L3-0003"));
    CHECK_THROWS(by_description(f, "core2-leaf-L1-0000"));
    CHECK_THROWS(by_description(f, "core1-top-L3-0004"));
    const Fabric again = generate_multicore(p);
    CHECK(nodes_by_guid(again) == nodes_by_guid(f));
    CHECK(links_by_guid(again) == links_by_guid(f));
    std::ostringstream out;
    write_net(out, f, {});
    std::istringstream in(out.str());
    const Fabric back = read_net(in, "multicore");
    CHECK(links_by_guid(back) == links_by_guid(f));
}

TEST_CASE("Multi-core parameters are validated, with reasons")
{
    auto reason = [](const MulticoreParams& p) -> std::string {
        try {
            generate_multicore(p);
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
        return "(accepted)";
    };
    MulticoreParams p;
    p.nems = 576; // 48 groups of 12: exactly full
    CHECK(MulticoreShape(p).switch_count() == 576 + 1440);
    p.nems = 577;
    CHECK_THAT(reason(p), Catch::Contains("577 NEMs do not fit") && Catch::Contains("room for 576"));
    p = {};
    p.uplinks_per_core = 7; // 288 / 7 = 41 groups of 12
    p.nems = 493;
    CHECK_THAT(reason(p), Catch::Contains("room for 492"));
    p = {};
    p.hosts_per_nem = 243; // 243 + 2 x 6 = 255 ports
    CHECK_THAT(reason(p), Catch::Contains("255 ports"));
    p = {};
    p.cores = 0;
    CHECK_THAT(reason(p), Catch::Contains("number of cores"));
    p.cores = 17;
    CHECK_THAT(reason(p), Catch::Contains("number of cores"));
    p = {};
    p.nems = 0;
    CHECK_THAT(reason(p), Catch::Contains("at least one NEM"));
    p = {};
    p.hosts_per_nem = 0;
    CHECK_THAT(reason(p), Catch::Contains("at least one host"));
    p = {};
    p.uplinks_per_core = 0;
    CHECK_THAT(reason(p), Catch::Contains("at least one uplink"));
    p = small();
    p.uplinks_per_core = 9;
    CHECK_THAT(reason(p), Catch::Contains("a core has only 8"));
    p = {};
    p.core.w = {2, 12, 12};
    CHECK_THAT(reason(p), Catch::Contains("w_1 and p_1 must be 1"));
    p = {};
    p.core.w = {1, 12};
    CHECK_THAT(reason(p), Catch::Contains("core shape:") && Catch::Contains("as many w and p"));
    p = {};
    p.core.dual_port_hosts = true;
    CHECK_THAT(reason(p), Catch::Contains("core shape:"));
    CHECK(reason(small()) == "(accepted)");
}
