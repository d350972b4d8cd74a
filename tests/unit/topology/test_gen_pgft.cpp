#include "topology/gen_pgft.h"

#include "fabric_view.h"

#include <catch2/catch.hpp>

#include <map>
#include <numeric>

using namespace ibsm;
using namespace ibsm::topology;
using namespace ibsm::topology::test;

namespace {

// Independent of the generator: where a node sits, decoded from the GUID
// scheme documented in gen_common.h.
struct Place {
    unsigned level;
    std::uint64_t index;
};
Place place(Guid g)
{
    std::uint64_t v = g.value();
    if ((v >> 32) == 0x0002c903) return {0, (v >> 8) & 0xffffff};
    REQUIRE((v >> 32) == 0x0002c902);
    return {static_cast<unsigned>((v >> 24) & 0xff), v & 0xffffff};
}

// Digits a_1..a_h of node `index` at `level` (seed 003: a_j < m_j above the
// level, < w_j at or below it), least significant first.
std::vector<unsigned> digits(const PgftParams& p, unsigned level, std::uint64_t index)
{
    std::vector<unsigned> d;
    for (unsigned j = 1; j <= p.m.size(); ++j) {
        unsigned radix = j > level ? p.m[j - 1] : p.w[j - 1];
        d.push_back(static_cast<unsigned>(index % radix));
        index /= radix;
    }
    return d;
}

std::uint64_t product(const std::vector<unsigned>& v, std::size_t from, std::size_t to)
{
    std::uint64_t r = 1;
    for (std::size_t i = from; i < to; ++i) r *= v[i];
    return r;
}

// |S_l| = prod_{j>l} m_j * prod_{j<=l} w_j.
std::uint64_t level_size(const PgftParams& p, unsigned l)
{
    return product(p.m, l, p.m.size()) * product(p.w, 0, l);
}

// Checks every cable against the connection rule E^p of seed 003 §II-B and
// counts cables per (lower node, upper node) pair.
void check_connection_rule(const PgftParams& p, const Fabric& f)
{
    const unsigned h = static_cast<unsigned>(p.m.size());
    std::map<std::pair<std::uint64_t, std::uint64_t>, unsigned> parallel;
    for (const Link& link : f.links()) {
        PortRef lo = link.a, hi = link.b;
        if (place(f.node(lo.node).guid).level > place(f.node(hi.node).guid).level) std::swap(lo, hi);
        Place pl = place(f.node(lo.node).guid), ph = place(f.node(hi.node).guid);
        REQUIRE(ph.level == pl.level + 1);
        const unsigned l = pl.level;
        const unsigned down_lo = l == 0 ? 0 : p.m[l - 1] * p.p[l - 1];
        const unsigned q = lo.port.value() - down_lo - 1; // up-port object of the lower node
        const unsigned r = hi.port.value() - 1;          // down-port object of the upper node
        const unsigned w = p.w[l], m = p.m[l];
        REQUIRE(q < w * p.p[l]);
        REQUIRE(r < m * p.p[l]);
        auto a = digits(p, l, pl.index), b = digits(p, l + 1, ph.index);
        for (unsigned j = 1; j <= h; ++j)
            if (j != l + 1) CHECK(a[j - 1] == b[j - 1]);
        CHECK(q / w == r / m);        // the k-th parallel link on both sides
        CHECK(b[l] == q % w);         // q = b_{l+1} + k w_{l+1}
        CHECK(a[l] == r % m);         // r = a_{l+1} + k m_{l+1}
        ++parallel[{f.node(lo.node).guid.value(), f.node(hi.node).guid.value()}];
    }
    for (const auto& [pair, n] : parallel) {
        INFO("level of lower node " << place(Guid(pair.first)).level);
        CHECK(n == p.p[place(Guid(pair.first)).level]);
    }
}

void check_all_ports_cabled(const Fabric& f)
{
    for (const Node& n : f.nodes())
        for (std::uint8_t i = 1; i <= n.num_ports(); ++i) {
            INFO(n.description << " port " << int(i));
            CHECK(n.port(PortNum(i)).remote.has_value());
        }
}

} // namespace

TEST_CASE("RLFT sizes match seed 003 eq. (1)-(2)")
{
    struct Rlft {
        PgftParams p;
        unsigned K;
        std::uint64_t hosts, switches;
    };
    const Rlft cases[] = {
        {{{12, 12, 24}, {1, 12, 12}, {1, 1, 1}, false}, 12, 3456, 720},
        {{{18, 36}, {1, 18}, {1, 1}, false}, 18, 648, 54},
        {{{4, 4, 8}, {1, 4, 4}, {1, 1, 1}, false}, 4, 128, 80},
    };
    for (const auto& c : cases) {
        const unsigned h = static_cast<unsigned>(c.p.m.size());
        // eq. (1): K = m_l p_l = w_{l+1} p_{l+1} = m_h p_h / 2
        for (unsigned l = 1; l < h; ++l) {
            CHECK(c.p.m[l - 1] * c.p.p[l - 1] == c.K);
            CHECK(c.p.w[l] * c.p.p[l] == c.K);
        }
        CHECK(c.p.m[h - 1] * c.p.p[h - 1] == 2 * c.K);
        // eq. (2): N = prod m_i = 2 K^h / prod p_k
        std::uint64_t n = 2;
        for (unsigned i = 0; i < h; ++i) n *= c.K;
        n /= product(c.p.p, 0, h);
        CHECK(n == c.hosts);

        Fabric f = generate_pgft(c.p);
        CHECK(f.ca_count() == c.hosts);
        CHECK(f.switch_count() == c.switches);
        std::uint64_t links = 0;
        for (unsigned l = 0; l < h; ++l) links += level_size(c.p, l) * c.p.w[l] * c.p.p[l];
        CHECK(f.link_count() == links);
        // Same switch everywhere: 2K ports, all cabled.
        for (const Node& node : f.nodes())
            if (node.is_switch()) CHECK(node.num_ports() == 2 * c.K);
        check_all_ports_cabled(f);
    }
}

TEST_CASE("General PGFTs with parallel links follow the connection rule")
{
    const PgftParams cases[] = {
        {{4, 3, 2}, {1, 2, 3}, {2, 1, 2}, false},
        {{2, 2}, {2, 3}, {3, 2}, false}, // multi-port hosts (w_1 p_1 = 6)
        {{3, 4, 2}, {1, 2, 2}, {1, 2, 1}, false},
        {{5}, {1}, {1}, false}, // a single switch
    };
    for (const auto& p : cases) {
        Fabric f = generate_pgft(p);
        const unsigned h = static_cast<unsigned>(p.m.size());
        std::uint64_t switches = 0, links = 0;
        for (unsigned l = 1; l <= h; ++l) switches += level_size(p, l);
        for (unsigned l = 0; l < h; ++l) links += level_size(p, l) * p.w[l] * p.p[l];
        CHECK(f.ca_count() == level_size(p, 0));
        CHECK(f.switch_count() == switches);
        CHECK(f.link_count() == links);
        // Port counts per level: down ports m_l p_l, then up ports w_{l+1} p_{l+1}.
        for (const Node& n : f.nodes()) {
            unsigned l = place(n.guid).level;
            unsigned down = l == 0 ? 0 : p.m[l - 1] * p.p[l - 1];
            unsigned up = l == h ? 0 : p.w[l] * p.p[l];
            CHECK(n.num_ports() == down + up);
        }
        check_all_ports_cabled(f);
        check_connection_rule(p, f);
    }
}

TEST_CASE("PGFT numbering: hosts first, host i on leaf i/m_1 port i%m_1+1, readable names")
{
    PgftParams p{{3, 2, 2}, {1, 2, 2}, {1, 1, 1}, false};
    Fabric f = generate_pgft(p);
    CHECK(f.node(NodeId{0}).description == "host-0000");
    CHECK(f.node(NodeId{0}).type == NodeType::ca);
    for (std::uint32_t i = 0; i < 12; ++i) {
        auto leaf = f.remote({NodeId{i}, PortNum(1)});
        REQUIRE(leaf);
        CHECK(f.node(leaf->node).description == "leaf-L1-000" + std::to_string(i / 3));
        CHECK(leaf->port == PortNum(static_cast<std::uint8_t>(i % 3 + 1)));
        CHECK(f.node(NodeId{i}).port(PortNum(1)).guid.value() == f.node(NodeId{i}).guid.value() + 1);
    }
    CHECK_NOTHROW(by_description(f, "spine-L2-0003"));
    CHECK_NOTHROW(by_description(f, "core-L3-0003"));
    // Deterministic.
    Fabric again = generate_pgft(p);
    CHECK(nodes_by_guid(again) == nodes_by_guid(f));
    CHECK(links_by_guid(again) == links_by_guid(f));
}

TEST_CASE("k-ary n-trees are the PGFT special case")
{
    Fabric f = generate_pgft(kary_ntree(4, 3));
    CHECK(f.ca_count() == 64);       // k^n
    CHECK(f.switch_count() == 48);   // n k^(n-1)
    CHECK(f.link_count() == 64 * 3); // k^n per level boundary
    Fabric g = generate_pgft(PgftParams{{4, 4, 4}, {1, 4, 4}, {1, 1, 1}, false});
    CHECK(links_by_guid(f) == links_by_guid(g));
    check_connection_rule(kary_ntree(4, 3), f);
}

TEST_CASE("Dual-port hosts reach two different leaves")
{
    PgftParams p{{4, 3}, {1, 2}, {1, 1}, true};
    Fabric f = generate_pgft(p);
    CHECK(f.link_count() == 12 + 3 * 2 + 12);
    for (const Node& n : f.nodes()) {
        if (n.type == NodeType::ca) {
            REQUIRE(n.num_ports() == 2);
            auto a = n.port(PortNum(1)).remote, b = n.port(PortNum(2)).remote;
            REQUIRE(a);
            REQUIRE(b);
            CHECK(a->node != b->node);
            CHECK(f.node(a->node).is_switch());
            CHECK(f.node(b->node).is_switch());
            CHECK(b->port.value() == 4 + a->port.value()); // second block of leaf down ports
        } else if (place(n.guid).level == 1) {
            CHECK(n.num_ports() == 2 * 4 + 2);
        }
    }
    check_all_ports_cabled(f);
}

TEST_CASE("PGFT parameters are validated")
{
    CHECK_THROWS_AS(generate_pgft(PgftParams{{}, {}, {}, false}), std::invalid_argument);
    CHECK_THROWS_AS(generate_pgft(PgftParams{{2, 2}, {1}, {1, 1}, false}), std::invalid_argument);
    CHECK_THROWS_AS(generate_pgft(PgftParams{{2, 0}, {1, 2}, {1, 1}, false}), std::invalid_argument);
    CHECK_THROWS_AS(generate_pgft(PgftParams{{200, 2}, {1, 100}, {1, 1}, false}), std::invalid_argument); // 300 ports
    CHECK_THROWS_AS(generate_pgft(PgftParams{{4}, {1}, {1}, true}), std::invalid_argument); // no sibling leaf
    CHECK_THROWS_AS(generate_pgft(PgftParams{{4, 2}, {2, 2}, {1, 1}, true}), std::invalid_argument);
    CHECK_THROWS_AS(kary_ntree(0, 2), std::invalid_argument);
}

TEST_CASE("PgftShape index arithmetic round-trips")
{
    PgftShape s(PgftParams{{4, 3, 2}, {1, 2, 3}, {2, 1, 2}, false});
    for (unsigned l = 0; l <= s.height(); ++l)
        for (std::uint64_t i = 0; i < s.nodes_at(l); ++i) CHECK(s.index(l, s.tuple(l, i)) == i);
    CHECK(s.up_port(1, 0) == PortNum(9)); // after m_1 p_1 = 8 down ports
    CHECK(s.down_port(2, 0) == PortNum(1));
    CHECK(s.link_count() == generate_pgft(s.params()).link_count());
}
