// The dump writer's SL file: written beside lfts.dump when the routing uses
// several SLs, readable back as the same SLs, and removed when a later
// routing uses one SL only.
#include "../routing/test_minhop_fabrics.h"

#include "daemon/publish/dump_writer.h"
#include "lidassign/base_lids.h"
#include "routing/dfsssp.h"
#include "routing/sl_file.h"
#include "routing/sssp.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace ibsm;
namespace fs = std::filesystem;

TEST_CASE("state dump writes sl.txt for multi-SL routing and removes it otherwise")
{
    daemon::DiscoveryResult found;
    found.fabric = test::ring(5, 1);
    found.sm_port = test::pr(topology::NodeId{5}, 1);
    auto lids = lidassign::assign_base_lids(found.fabric, {}, {}).lids;
    const fs::path dir = fs::temp_directory_path() / ("ibsmd-state-dump-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);

    auto df = routing::DfssspEngine().compute(found.fabric, lids, routing::Options{});
    REQUIRE(std::holds_alternative<routing::RoutingTables>(df));
    const auto& tables = std::get<routing::RoutingTables>(df);
    REQUIRE(tables.sl.max_sl() > 0);
    auto snap = std::make_shared<daemon::SubnetSnapshot>();
    snap->generation = 1;
    snap->found = found;
    snap->lids.lids = lids;
    snap->tables = std::make_shared<routing::RoutingTables>(tables);
    {
        daemon::DumpWriter w(dir, config::DumpConfig{});
        w.publish(snap);
        w.drain();
        CHECK(w.failed() == 0);
    }
    std::ifstream in(dir / "sl.txt");
    auto back = routing::read_sl_file(in, "sl.txt", found.fabric);
    CHECK(back.vls == tables.vls_used);
    for (auto src : tables.sl.sources())
        for (std::uint16_t lid = 0; lid < tables.sl.lid_limit(); ++lid)
            CHECK(back.sl.at(src, Lid(lid)) == tables.sl.at(src, Lid(lid)));

    auto one = routing::SsspEngine().compute(found.fabric, lids, routing::Options{});
    auto next = std::make_shared<daemon::SubnetSnapshot>(*snap);
    next->generation = 2;
    next->tables = std::make_shared<routing::RoutingTables>(std::get<routing::RoutingTables>(one));
    {
        daemon::DumpWriter w(dir, config::DumpConfig{});
        w.publish(next);
        w.drain();
    }
    CHECK_FALSE(fs::exists(dir / "sl.txt"));
    CHECK(fs::exists(dir / "lfts.dump"));
    fs::remove_all(dir);
}

namespace {

// Polls until the writer's newest report is of generation `gen` (the report
// has its own thread; drain() would end the writer).
bool report_reaches(const daemon::DumpWriter& w, std::uint64_t gen)
{
    for (int i = 0; i < 600 && w.report_generation() != gen; ++i) usleep(50 * 1000);
    return w.report_generation() == gen;
}

std::string read_text(const fs::path& p)
{
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

TEST_CASE("dump.report: report.html per new generation from the snapshot's LIDs, removed when turned off")
{
    daemon::DiscoveryResult found;
    found.fabric = test::ring(5, 1);
    found.sm_port = test::pr(topology::NodeId{5}, 1);
    // The discovered fabric carries no LIDs: the report takes the snapshot's.
    auto lids = lidassign::assign_base_lids(found.fabric, {}, {}).lids;
    const fs::path dir = fs::temp_directory_path() / ("ibsmd-report-dump-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);

    auto snap = std::make_shared<daemon::SubnetSnapshot>();
    snap->generation = 1;
    snap->found = found;
    snap->lids.lids = lids;
    snap->engine = "dfsssp";
    snap->tables = std::make_shared<routing::RoutingTables>(
        std::get<routing::RoutingTables>(routing::DfssspEngine().compute(found.fabric, lids, routing::Options{})));
    config::DumpConfig which;
    which.report = true;
    daemon::DumpWriter w(dir, which);
    CHECK(w.report_generation() == 0);
    w.publish(snap);
    REQUIRE(report_reaches(w, 1));
    const std::string first = read_text(dir / "report.html");
    CHECK(first.find("<svg") != std::string::npos);
    CHECK(first.find("generation 1") != std::string::npos);
    // Every CA pair delivered: the LIDs were the snapshot's, not the fabric's (none).
    CHECK(first.find("data-key=\"pairs.ca_to_ca.delivered\" data-v=\"20\"") != std::string::npos);
    CHECK(first.find("data-key=\"pairs.ca_to_ca.unreachable\" data-v=\"0\"") != std::string::npos);

    auto next = std::make_shared<daemon::SubnetSnapshot>(*snap);
    next->generation = 2;
    next->engine = "sssp";
    next->tables = std::make_shared<routing::RoutingTables>(
        std::get<routing::RoutingTables>(routing::SsspEngine().compute(found.fabric, lids, routing::Options{})));
    w.publish(next);
    REQUIRE(report_reaches(w, 2));
    CHECK(read_text(dir / "report.html").find("generation 2") != std::string::npos);
    CHECK(w.report_path() == dir / "report.html");

    which.report = false;
    w.set_config(which);
    w.drain();
    CHECK_FALSE(fs::exists(dir / "report.html"));
    CHECK(w.report_generation() == 0);
    CHECK(w.failed() == 0);
    fs::remove_all(dir);
}
