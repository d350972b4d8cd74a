// OpenSM's opensm-lfts.dump read by the dump_fts parser (routing/lft_dump.h):
// the sample in tests/data/analysis/tree8_opensm was written by OpenSM on
// ibsim, and the same switches' tables were read back there with dump_fts;
// both files must give the same tables.
#include "routing/lft_dump.h"
#include "topology/netfile_file.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace ibsm;

namespace {

const std::string sample_dir = std::string(IBSM_ROUTING_TEST_DATA) + "/../analysis/tree8_opensm";

std::vector<routing::SwitchLftDump> parse_file(const std::string& name)
{
    std::ifstream in(sample_dir + "/" + name);
    REQUIRE(in);
    return routing::parse_dump_fts(in, name);
}

std::vector<routing::SwitchLftDump> parse_text(const std::string& text)
{
    std::istringstream in(text);
    return routing::parse_dump_fts(in, "test");
}

} // namespace

TEST_CASE("OpenSM's opensm-lfts.dump gives the tables dump_fts reads back from the same switches")
{
    const auto fabric = topology::load_net_file(sample_dir + "/topology.net");
    const auto osm = parse_file("opensm-lfts.dump");
    const auto fts = parse_file("lfts.dump");
    REQUIRE(osm.size() == 6);
    REQUIRE(fts.size() == 6);
    for (const auto& d : osm) {
        CHECK(d.opensm);
        CHECK(d.lid.has_value());
        CHECK(d.description.find('\'') == std::string::npos);
        CHECK(d.listed == 14);
    }
    for (const auto& d : fts) CHECK_FALSE(d.opensm);
    CHECK(osm.front().description == "leaf-L1-0000");
    CHECK(osm.front().lid == Lid(2));
    CHECK(osm.front().lft.port.at(1) == 1);
    CHECK(osm.front().lft.port.at(6) == 2);

    const auto a = routing::tables_from_dump(osm, fabric, "opensm-lfts.dump", "opensm");
    const auto b = routing::tables_from_dump(fts, fabric, "lfts.dump");
    CHECK(a.linear_fdb_top == b.linear_fdb_top);
    REQUIRE(a.lfts.size() == b.lfts.size());
    for (const auto& [node, lft] : a.lfts) {
        INFO(fabric.node(node).description);
        REQUIRE(b.lfts.count(node));
        CHECK(lft.port == b.lfts.at(node).port);
    }
}

TEST_CASE("OpenSM format: entries may be missing, the count line is the range top, malformed text is refused")
{
    const std::string head = "Unicast lids [0-3] of switch Lid 1 guid 0x0000000000000010 ('sw'):\n";
    // LID 2 unreachable: OpenSM leaves it out and still says "3 lids dumped".
    auto d = parse_text(head + "0x0001 000 # Switch portguid 0x0000000000000010: 'sw'\n"
                               "0x0003 002 # Channel Adapter portguid 0x0000000000000021: 'h'\n"
                               "3 lids dumped\n");
    REQUIRE(d.size() == 1);
    CHECK(d[0].opensm);
    CHECK(d[0].listed == 2);
    CHECK(d[0].lft.port.at(2) == routing::no_route);
    CHECK(d[0].lft.port.at(3) == 2);
    CHECK_THROWS_WITH(parse_text(head + "0x0001 000 # x\n2 lids dumped\n"), Catch::Contains("ends at 3"));
    CHECK_THROWS_WITH(parse_text(head + "0x0001 000 : (x)\n3 lids dumped\n"),
                      Catch::Contains("unexpected text after the output port"));
    CHECK_THROWS_WITH(parse_text(head + "0x0004 001 # x\n3 lids dumped\n"), Catch::Contains("outside the header range"));
    CHECK_THROWS_WITH(parse_text(head + "0x0001 000 # x\n"), Catch::Contains("truncated"));
    CHECK_THROWS_WITH(parse_text("Unicast lids [0-0x3] of switch Lid 1 guid 0x10 ('sw'):\n"),
                      Catch::Contains("bad LID range"));
}
