// A per-pair path engine brought up by the daemon on the in-process fake
// fabric: the LIDs the engine assigned (colour-first, per-port
// LMC) are the ones on the ports, the switches hold every LID of every
// block, every pair is delivered on the DLID of the path file, guid2lid has
// the blocks, and a second sweep keeps them and sends no LFT block.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/sweep/bringup.h"
#include "lidassign/guid2lid.h"
#include "routing/analysis/analyze.h"
#include "routing/path_file.h"
#include "topology/gen_random.h"

#include <catch2/catch.hpp>

#include <fstream>

using namespace ibsm;
using test::bringup_settings;
using test::QuietLogs;
using test::TempDir;

TEST_CASE("pathsel + color/L through the daemon: per-port LMC on the ports, every pair on its DLID", "[fake][paths]")
{
    QuietLogs quiet;
    TempDir dir;
    topology::RandomParams p;
    p.switches = 8;
    p.hosts_per_switch = 4;
    p.ports_per_switch = 10;
    p.seed = 3;
    const auto fabric = topology::generate_random(p);
    test::FabricLoop loop(fabric);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path, {"pathsel"}));
    const auto outcome = loop.run([&] { return b.sweep(); });
    INFO(outcome.reason);
    REQUIRE(outcome.up);
    CHECK_FALSE(outcome.degraded);
    CHECK(outcome.engine == "pathsel");
    const auto snap = b.snapshot();
    REQUIRE(snap->tables);
    REQUIRE(snap->tables->pair_dlids);
    REQUIRE(snap->tables->lids);

    // The ports carry the engine's blocks.
    const auto rb = loop.fabric.read_back();
    unsigned multi = 0;
    for (const auto& [port, pl] : snap->lids.lids.entries()) {
        const Guid g = snap->found.fabric.port(port).guid;
        const auto at = rb.fabric.find_port(g);
        REQUIRE(at);
        const auto& live = rb.fabric.port(rb.fabric.node(at->node).is_switch() ? topology::PortRef{at->node, PortNum(0)} : *at);
        CHECK(live.lid == pl.base);
        CHECK(live.lmc == pl.lmc);
        if (pl.lmc > 0) ++multi;
    }
    CHECK(multi > 0);

    // guid2lid holds the blocks (base..last).
    std::ifstream g2l(dir.path / "guid2lid");
    const auto kept = lidassign::read_guid2lid(g2l, "guid2lid");
    for (const auto& [port, pl] : snap->lids.lids.entries())
        CHECK(kept.at(snap->found.fabric.port(port).guid) == pl.base);

    // The tables read back, scored on each pair's DLID (as `ibsm analyze --paths`).
    std::ostringstream paths;
    routing::write_path_file(paths, snap->found.fabric, *snap->tables->pair_dlids, "pathsel");
    std::istringstream in(paths.str());
    auto tables = rb.tables;
    tables.pair_dlids = std::make_shared<const routing::PairDlids>(
        routing::resolve_path_file(routing::read_path_file(in, "paths"), rb.fabric, "paths"));
    routing::analysis::Options o;
    o.run_ebb = false;
    o.run_shifts = false;
    o.threads = 1;
    const auto report = routing::analysis::analyze(rb.fabric, tables, o);
    CHECK(report.pair_routes);
    const auto& ca = report.of(routing::analysis::PairClass::ca_to_ca);
    CHECK(ca.pairs == fabric.ca_count() * (fabric.ca_count() - 1));
    CHECK(ca.delivered == ca.pairs);
    CHECK(report.of(routing::analysis::PairClass::switch_to_ca).delivered ==
          fabric.switch_count() * fabric.ca_count());
    CHECK_FALSE(report.credit_ca_only.has_loop());

    // A second sweep: same blocks, no LFT block sent.
    const auto again = loop.run([&] { return b.sweep(); });
    REQUIRE(again.up);
    const auto snap2 = b.snapshot();
    CHECK(snap2->lids.lids.entries().size() == snap->lids.lids.entries().size());
    for (const auto& [port, pl] : snap->lids.lids.entries()) {
        auto now = snap2->lids.lids.lids_of(port);
        REQUIRE(now);
        CHECK(now->base == pl.base);
        CHECK(now->lmc == pl.lmc);
    }
    CHECK(again.lft_blocks_sent == 0);
}
