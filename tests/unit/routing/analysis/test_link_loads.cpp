// Report::link_loads (Options::keep_link_loads) against an independent
// brute-force count: every CA-to-CA pair walked through the LFTs hop by hop,
// on generated fabrics routed by the engines, and on a per-pair path routing
// (pathsel, each pair on its own DLID). The examples must be real routes over
// their channel.
#include "lidassign/base_lids.h"
#include "routing/analysis/analyze.h"
#include "routing/chain.h"
#include "routing/registry.h"
#include "topology/gen_irregular.h"
#include "topology/gen_pgft.h"
#include "topology/gen_random.h"

#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <utility>

using namespace ibsm;
using namespace ibsm::routing::analysis;
using topology::Fabric;
using topology::PortRef;

namespace {

struct Routed {
    Fabric fabric;
    routing::RoutingTables tables;
};

void make_healthy(Fabric& f)
{
    for (auto id : f.node_ids())
        for (auto& port : f.node(id).ports) {
            port.known = true;
            port.state = port.remote ? topology::PortState::active : topology::PortState::down;
        }
}

Routed route(const std::string& engine, Fabric f)
{
    make_healthy(f);
    auto lids = lidassign::assign_base_lids(f, {}, {}).lids;
    lidassign::apply_lids(lids, f);
    auto r = routing::default_registry().create(engine)->compute(f, lids, routing::Options{});
    if (auto* refusal = std::get_if<routing::Refusal>(&r)) FAIL(refusal->engine << ": " << refusal->reason);
    return {std::move(f), std::get<routing::RoutingTables>(std::move(r))};
}

// pathsel through the chain: its own LID blocks written onto the ports.
Routed route_pairs(Fabric f)
{
    make_healthy(f);
    const auto base = lidassign::assign_base_lids(f, {}, {}).lids;
    auto out = routing::run_chain(routing::default_registry(), routing::ChainSpec{{"pathsel"}, true}, f, base,
                                  routing::Options{});
    REQUIRE(out.tables);
    REQUIRE(out.tables->lids);
    REQUIRE(out.tables->pair_dlids);
    lidassign::apply_lids(*out.tables->lids, f);
    return {std::move(f), std::move(*out.tables)};
}

Options opts(unsigned threads)
{
    Options o;
    o.run_ebb = false;
    o.run_shifts = false;
    o.threads = threads;
    o.keep_link_loads = true;
    o.link_examples = 3;
    return o;
}

using ChannelKey = std::pair<std::uint64_t, unsigned>; // tail node GUID, tail port
using Walk = std::vector<ChannelKey>;

// CA ports with a LID and a cable.
std::vector<PortRef> ca_ports(const Fabric& f)
{
    std::vector<PortRef> out;
    for (auto id : f.node_ids()) {
        const auto& n = f.node(id);
        if (n.is_switch()) continue;
        for (unsigned p = 1; p <= n.num_ports(); ++p)
            if (n.ports[p].remote && n.ports[p].lid.value() != 0) out.push_back(PortRef{id, PortNum(static_cast<std::uint8_t>(p))});
    }
    return out;
}

// The channels from `src` toward `dlid` when it is delivered at `dst`.
std::optional<Walk> walk(const Routed& r, PortRef src, std::uint32_t dlid, PortRef dst)
{
    Walk w;
    PortRef at = src;
    for (int hop = 0; hop < 64; ++hop) {
        const auto& remote = r.fabric.port(at).remote;
        if (!remote) return std::nullopt;
        w.emplace_back(r.fabric.node(at.node).guid.value(), at.port.value());
        if (!r.fabric.node(remote->node).is_switch()) {
            if (*remote == dst) return w;
            return std::nullopt;
        }
        auto lft = r.tables.lfts.find(remote->node);
        if (lft == r.tables.lfts.end()) return std::nullopt;
        const std::uint8_t out = lft->second.at(Lid(static_cast<std::uint16_t>(dlid)));
        if (out == routing::no_route || out == 0) return std::nullopt;
        at = PortRef{remote->node, PortNum(out)};
    }
    return std::nullopt;
}

// Routes per channel, counted pair by pair; `dlid_of` gives the DLID a
// source uses toward a destination (nullopt: no route wanted).
template <typename DlidOf>
std::map<ChannelKey, std::uint64_t> brute_loads(const Routed& r, DlidOf dlid_of)
{
    std::map<ChannelKey, std::uint64_t> load;
    const auto cas = ca_ports(r.fabric);
    for (PortRef s : cas)
        for (PortRef d : cas) {
            if (s == d) continue;
            const auto dlid = dlid_of(s, d);
            if (!dlid) continue;
            if (auto w = walk(r, s, *dlid, d))
                for (const auto& c : *w) ++load[c];
        }
    return load;
}

PortRef owner_of(const Fabric& f, std::uint32_t lid)
{
    for (PortRef p : ca_ports(f)) {
        const auto& port = f.port(p);
        if (lid >= port.lid.value() && lid < port.lid.value() + (1u << port.lmc)) return p;
    }
    FAIL("no CA port owns LID " << lid);
    return {};
}

// Loads equal the brute-force count; the summary agrees with efi_all; every
// example is a delivered route over its channel.
void check(const Routed& r, const Report& rep, const std::map<ChannelKey, std::uint64_t>& expect)
{
    REQUIRE(rep.link_loads.size() == 2 * r.fabric.link_count());
    std::uint64_t sum = 0, max = 0, with_examples = 0;
    for (const LinkLoad& l : rep.link_loads) {
        INFO(link_label(l.link));
        const ChannelKey key{l.link.from.guid.value(), l.link.from.port};
        auto it = expect.find(key);
        CHECK(l.load == (it == expect.end() ? 0 : it->second));
        sum += l.load;
        max = std::max(max, l.load);
        const auto from = r.fabric.find_node(l.link.from.guid);
        const auto to = r.fabric.find_node(l.link.to.guid);
        REQUIRE(from);
        REQUIRE(to);
        CHECK(l.switch_link == (r.fabric.node(*from).is_switch() && r.fabric.node(*to).is_switch()));
        CHECK(l.examples.size() <= 3);
        CHECK(l.examples.size() == std::min<std::uint64_t>(l.load, 3));
        if (!l.examples.empty()) ++with_examples;
        for (const NamedPair& e : l.examples) {
            INFO(e.source << " -> " << e.destination << " (LID " << e.dlid << ")");
            const auto src_node = r.fabric.find_node(e.source_guid);
            REQUIRE(src_node);
            CHECK(r.fabric.node(*src_node).description == e.source);
            PortRef src{};
            for (PortRef p : ca_ports(r.fabric))
                if (p.node == *src_node) src = p;
            const PortRef dst = owner_of(r.fabric, e.dlid);
            CHECK(r.fabric.node(dst.node).description == e.destination);
            const auto w = walk(r, src, e.dlid, dst);
            REQUIRE(w);
            CHECK(std::find(w->begin(), w->end(), key) != w->end());
        }
    }
    CHECK(with_examples > 0);
    CHECK(max == rep.efi_all.max);
    CHECK(static_cast<double>(sum) == Approx(rep.efi_all.mean * static_cast<double>(rep.efi_all.channels)));
    const ClassReport& ca = rep.of(PairClass::ca_to_ca);
    CHECK(static_cast<double>(sum) == Approx(ca.hops_mean * static_cast<double>(ca.delivered)));
}

void check_same(const Report& a, const Report& b)
{
    REQUIRE(a.link_loads.size() == b.link_loads.size());
    for (std::size_t i = 0; i < a.link_loads.size(); ++i) {
        const LinkLoad &x = a.link_loads[i], &y = b.link_loads[i];
        INFO(link_label(x.link));
        CHECK(link_label(x.link) == link_label(y.link));
        CHECK(x.load == y.load);
        REQUIRE(x.examples.size() == y.examples.size());
        for (std::size_t k = 0; k < x.examples.size(); ++k) {
            CHECK(x.examples[k].source == y.examples[k].source);
            CHECK(x.examples[k].dlid == y.examples[k].dlid);
        }
    }
}

} // namespace

TEST_CASE("link loads equal a pair-by-pair count on generated fabrics, whatever the thread count")
{
    struct Case {
        std::string name, engine;
        Fabric fabric;
    };
    topology::PgftParams tree;
    tree.m = {4, 4};
    tree.w = {1, 2};
    tree.p = {1, 2}; // two parallel cables leaf-spine
    topology::RandomParams rnd;
    rnd.switches = 8;
    rnd.hosts_per_switch = 2;
    rnd.ports_per_switch = 7;
    rnd.seed = 5;
    std::vector<Case> cases;
    cases.push_back({"torus 4x4 minhop", "minhop", topology::generate_torus({4, 4, 2, true})});
    cases.push_back({"pgft minhop", "minhop", topology::generate_pgft(tree)});
    cases.push_back({"pgft ftree", "ftree", topology::generate_pgft(tree)});
    cases.push_back({"random updn", "updn", topology::generate_random(rnd)});
    for (auto& c : cases) {
        DYNAMIC_SECTION(c.name)
        {
            const Routed r = route(c.engine, c.fabric);
            const Report one = analyze(r.fabric, r.tables, opts(1));
            const auto expect = brute_loads(r, [&](PortRef, PortRef d) -> std::optional<std::uint32_t> {
                return r.fabric.port(d).lid.value();
            });
            check(r, one, expect);
            check_same(one, analyze(r.fabric, r.tables, opts(3)));
        }
    }
}

TEST_CASE("link loads of a per-pair path routing count each pair on its own DLID")
{
    topology::RandomParams rnd;
    rnd.switches = 6;
    rnd.hosts_per_switch = 3;
    rnd.ports_per_switch = 8;
    rnd.seed = 3;
    const Routed r = route_pairs(topology::generate_random(rnd));
    const routing::PairDlids& dl = *r.tables.pair_dlids;
    const Report rep = analyze(r.fabric, r.tables, opts(1));
    REQUIRE(rep.pair_routes);
    const auto expect = brute_loads(r, [&](PortRef s, PortRef d) -> std::optional<std::uint32_t> {
        const auto si = dl.source_index(s);
        const auto di = dl.destination_index(d);
        if (!si || !di) return std::nullopt;
        const auto lid = dl.dlid(*si, *di);
        if (!lid) return std::nullopt;
        return lid->value();
    });
    // Some pairs do not use the base LID, or this would not test anything new.
    bool off_base = false;
    for (std::size_t s = 0; s < dl.sources.size() && !off_base; ++s)
        for (std::size_t d = 0; d < dl.destinations.size(); ++d)
            if (auto lid = dl.dlid(s, d); lid && *lid != dl.destinations[d].base) off_base = true;
    CHECK(off_base);
    check(r, rep, expect);
    check_same(rep, analyze(r.fabric, r.tables, opts(3)));
}
