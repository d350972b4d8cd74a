// Drains on a generated fat-tree's snapshot: a core drained and undrained,
// the refusals (a leaf, a host's only link), the dry run, the file across a
// restart, the rows shown isolated.
#include "../support/temp_dir.h"
#include "daemon/maint/drains.h"

#include "config/config.h"
#include "health/isolation.h"
#include "lidassign/base_lids.h"
#include "routing/chain.h"
#include "routing/registry.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace ibsm;
using namespace ibsm::daemon;
using topology::NodeId;

namespace {

NodeId named(const topology::Fabric& f, const std::string& name)
{
    for (auto id : f.node_ids())
        if (f.node(id).description == name) return id;
    FAIL("no node " << name);
    return {};
}

// A 4-ary 2-tree as a sweep would leave it: the SM on host-0000, routed by
// ibsmd's default chain.
SnapshotPtr snapshot(std::uint64_t generation = 1)
{
    auto s = std::make_shared<SubnetSnapshot>();
    s->generation = generation;
    s->found.fabric = topology::generate_pgft(topology::kary_ntree(4, 2));
    const auto& f = s->found.fabric;
    s->found.sm_port = topology::PortRef{named(f, "host-0000"), PortNum(1)};
    s->lids.lids = lidassign::assign_base_lids(f, {}, {}).lids;
    routing::ChainSpec chain{config::RoutingConfig{}.engines, false};
    routing::Options o;
    o.sm_port_guid = f.port(s->found.sm_port).guid;
    auto out = routing::run_chain(routing::default_registry(), chain, f, s->lids.lids, o);
    REQUIRE(out.tables);
    s->tables = std::make_shared<const routing::RoutingTables>(std::move(*out.tables));
    return s;
}

struct Rig {
    test::TempDir dir;
    Drains drains{dir.path, [] { return 1000.0; }};
    SnapshotPtr snap = snapshot();
    std::vector<std::string> changes;
    std::vector<std::pair<std::string, nlohmann::json>> events;
    Rig()
    {
        drains.on_change([this](const std::string& why) { changes.push_back(why); });
        drains.on_event([this](std::string_view kind, const nlohmann::json& j) { events.emplace_back(kind, j); });
        drains.on_outcome(SweepOutcome{}, snap);
    }
    const topology::Fabric& fabric() const { return snap->found.fabric; }
};

} // namespace

TEST_CASE("a core drained keeps one link for its LID, persists, and undrains")
{
    Rig r;
    const auto core = named(r.fabric(), "core-L2-0002");
    auto res = r.drains.drain(whatif::TargetKind::switch_node, "core-L2-0002", false);
    REQUIRE(res.ok);
    CHECK(res.text.find("3 link(s) out of the routing") != std::string::npos);
    const auto links = r.drains.links();
    CHECK(links.size() == 3);
    for (const auto& l : links) CHECK(l.node == r.fabric().node(core).guid);
    REQUIRE(r.drains.records().size() == 1);
    REQUIRE(r.drains.records()[0].kept);
    CHECK(links.count(*r.drains.records()[0].kept) == 0);
    CHECK(r.changes.size() == 1);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].first == "drain");
    CHECK(r.events[0].second["links"] == 3);
    // Twice is no new drain.
    CHECK(r.drains.drain(whatif::TargetKind::switch_node, "core-L2-0002", false).text.find("already drained") !=
          std::string::npos);
    CHECK(r.changes.size() == 1);

    // A restart: the file gives the same drain and its links before any sweep.
    Drains again(r.dir.path);
    again.load();
    CHECK(again.records() == r.drains.records());
    CHECK(again.links() == links);

    // The same generation again changes nothing; undrain brings the links back.
    r.drains.on_outcome(SweepOutcome{}, r.snap);
    CHECK(r.changes.size() == 1);
    CHECK_FALSE(r.drains.undrain(whatif::TargetKind::switch_node, "core-L2-0001").ok);
    res = r.drains.undrain(whatif::TargetKind::switch_node, r.fabric().node(core).guid.str());
    REQUIRE(res.ok);
    CHECK(r.drains.links().empty());
    CHECK(r.changes.size() == 2);
    CHECK(r.events.back().first == "undrain");
    Drains after(r.dir.path);
    after.load();
    CHECK(after.records().empty());
}

TEST_CASE("a leaf drain is refused, naming its hosts; so is a host's only link")
{
    Rig r;
    auto res = r.drains.drain(whatif::TargetKind::switch_node, "leaf-L1-0001", false);
    CHECK_FALSE(res.ok);
    for (const char* host : {"host-0004", "host-0005", "host-0006", "host-0007"})
        CHECK(res.text.find(host) != std::string::npos);
    CHECK(res.text.find("would cut off 4 node(s)") != std::string::npos);
    CHECK(r.drains.links().empty());
    CHECK(r.changes.empty());
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].first == "drain_refused");

    const auto host = named(r.fabric(), "host-0009");
    res = r.drains.drain(whatif::TargetKind::link, r.fabric().node(host).ports[1].guid.str() + "/1", false);
    CHECK_FALSE(res.ok);
    CHECK(res.text.find("host-0009") != std::string::npos);

    // The SM's own leaf: its host would be cut off too.
    CHECK_FALSE(r.drains.drain(whatif::TargetKind::switch_node, "leaf-L1-0000", false).ok);
    // Unknown names and CAs named as switches are refused with the reason.
    CHECK(r.drains.drain(whatif::TargetKind::switch_node, "nowhere", false).text.find("no node") != std::string::npos);
    CHECK(r.drains.drain(whatif::TargetKind::switch_node, "host-0001", false).text.find("not a switch") !=
          std::string::npos);
}

TEST_CASE("two cores drained together leave the others; a third drain that cuts a leaf off is refused")
{
    Rig r;
    REQUIRE(r.drains.drain(whatif::TargetKind::switch_node, "core-L2-0001", false).ok);
    REQUIRE(r.drains.drain(whatif::TargetKind::switch_node, "core-L2-0002", false).ok);
    REQUIRE(r.drains.drain(whatif::TargetKind::switch_node, "core-L2-0003", false).ok);
    // Every leaf now reaches the rest through core-L2-0000 alone: its drain
    // would leave each leaf with its hosts cut off.
    const auto res = r.drains.drain(whatif::TargetKind::switch_node, "core-L2-0000", false);
    CHECK_FALSE(res.ok);
    CHECK(res.text.find("leaf-L1-0003") != std::string::npos);
}

TEST_CASE("a dry run predicts and changes nothing")
{
    Rig r;
    auto res = r.drains.drain(whatif::TargetKind::switch_node, "core-L2-0003", true);
    REQUIRE(res.ok);
    CHECK(res.text.find("dry run: nothing changed") == 0);
    CHECK(res.whatif["cut_off"].empty());
    CHECK(res.whatif["unreachable_pairs"] == 0);
    CHECK(res.whatif["gate_passed"] == true);
    CHECK(res.whatif["lft_blocks_changed"].get<unsigned>() > 0);
    CHECK(res.whatif["refused"] == false);
    CHECK(r.drains.links().empty());
    CHECK(r.changes.empty());
    CHECK(r.events.empty());
    // A dry run of a refused drain says so, with what is cut off.
    res = r.drains.drain(whatif::TargetKind::switch_node, "leaf-L1-0002", true);
    REQUIRE(res.ok);
    CHECK(res.whatif["refused"] == true);
    CHECK(res.whatif["cut_off"].size() == 4);
    CHECK(res.text.find("REFUSED") != std::string::npos);
}

TEST_CASE("a drained link, and the rows of drained links shown isolated")
{
    Rig r;
    const auto& f = r.fabric();
    const auto leaf = named(f, "leaf-L1-0003");
    const topology::PortRef up{leaf, PortNum(6)};
    REQUIRE(f.remote(up));
    REQUIRE(r.drains.drain(whatif::TargetKind::link, "leaf-L1-0003/6", false).ok);
    CHECK(r.drains.links() == std::set<health::PortId>{health::port_id(f, up)});
    // Undrain by the far end's name.
    const auto far = *f.remote(up);
    std::vector<health::PortHealth> rows(3);
    rows[0].id = health::port_id(f, far);
    rows[1].id = health::port_id(f, up);
    rows[2].id = health::PortId{f.node(leaf).guid, PortNum(1)};
    const auto marked = r.drains.mark(rows);
    REQUIRE(marked.size() == 3);
    CHECK(marked[0].state == health::HealthState::isolated);
    CHECK(marked[1].state == health::HealthState::isolated);
    CHECK(marked[0].reasons.at(0).rfind("drain: link leaf-L1-0003/6", 0) == 0);
    CHECK(marked[2].state == health::HealthState::ok);
    CHECK(r.drains
              .undrain(whatif::TargetKind::link, f.node(far.node).guid.str() + "/" + std::to_string(far.port.value()))
              .ok);
    CHECK(r.drains.links().empty());
}

TEST_CASE("a corrupt drains.json is moved aside and nothing is drained")
{
    test::TempDir dir;
    {
        std::ofstream out(dir.path / "drains.json");
        out << "{not json";
    }
    Drains d(dir.path);
    d.load();
    CHECK(d.records().empty());
    CHECK_FALSE(std::filesystem::exists(dir.path / "drains.json"));
}

TEST_CASE("before any sweep there is nothing to drain")
{
    test::TempDir dir;
    Drains d(dir.path);
    const auto res = d.drain(whatif::TargetKind::switch_node, "core-L2-0000", false);
    CHECK_FALSE(res.ok);
    CHECK(res.text.find("no fabric configured yet") != std::string::npos);
}
