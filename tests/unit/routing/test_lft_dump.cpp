#include "routing/lft_dump.h"

#include "test_minhop_fabrics.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace ibsm;
using namespace ibsm::test;
using namespace ibsm::routing;

namespace {

std::string fixture(const std::string& name)
{
    std::ifstream in(std::string(IBSM_ROUTING_TEST_DATA) + "/" + name);
    REQUIRE(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<SwitchLftDump> parse(const std::string& text)
{
    std::istringstream in(text);
    return parse_dump_fts(in, "test.dump");
}

// Real dumps name switches by DR path, ours by LID.
std::string with_lid_addresses(std::string text)
{
    for (auto [from, to] : {std::pair<std::string, std::string>{"DR path slid 0; dlid 0; 0,3 guid", "Lid 3 guid"},
                            {"DR path slid 0; dlid 0; 0 guid", "Lid 1 guid"}}) {
        for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos))
            text.replace(pos, from.size(), to);
    }
    return text;
}

} // namespace

TEST_CASE("dump_fts parser reads real dump_fts output")
{
    auto dumps = parse(fixture("2sw2path4hca_lmc2.dump_fts"));
    REQUIRE(dumps.size() == 2);
    const auto& s2 = dumps[0];
    CHECK(s2.guid == Guid(0x200001));
    CHECK(s2.description == "Switch2");
    CHECK(s2.address == "DR path slid 0; dlid 0; 0,3");
    CHECK_FALSE(s2.lid);
    CHECK(s2.first == Lid(0));
    CHECK(s2.last == Lid(0x13));
    CHECK(s2.listed == 18);
    CHECK(s2.lft.port.size() == 0x14);
    CHECK(s2.lft.at(Lid(3)) == 0);
    CHECK(s2.lft.at(Lid(9)) == 5);
    CHECK(s2.lft.at(Lid(0x13)) == 2);
    CHECK(s2.lft.at(Lid(2)) == no_route); // not listed
    CHECK(s2.line == 1);
    CHECK(dumps[1].guid == Guid(0x200000));
    CHECK(dumps[1].line == 23);

    // -a lists invalid entries too; the tables are the same.
    auto all = parse(fixture("2sw2path4hca_lmc2_all.dump_fts"));
    REQUIRE(all.size() == 2);
    CHECK(all[0].listed == 20);
    for (int i = 0; i < 2; ++i) CHECK(all[i].lft.port == dumps[i].lft.port);
}

TEST_CASE("dump_fts writer reproduces dump_fts byte for byte")
{
    auto e = ibsim_2sw2path4hca();
    SECTION("LMC 0")
    {
        const auto lids = opensm_lids_lmc0(e);
        const auto text = fixture("2sw2path4hca.dump_fts");
        auto tables = tables_from_dump(parse(text), e.f, "fixture");
        std::ostringstream out;
        write_dump_fts(out, e.f, lids, tables);
        CHECK(out.str() == with_lid_addresses(text));
    }
    SECTION("LMC 2, with and without -a")
    {
        auto lids = opensm_lids_lmc2(e);
        const auto text = fixture("2sw2path4hca_lmc2.dump_fts");
        auto tables = tables_from_dump(parse(text), e.f, "fixture");
        CHECK(tables.linear_fdb_top == Lid(0x13));
        std::ostringstream out;
        write_dump_fts(out, e.f, lids, tables);
        CHECK(out.str() == with_lid_addresses(text));

        std::ostringstream all;
        write_dump_fts(all, e.f, lids, tables, DumpFtsOptions{true});
        CHECK(all.str() == with_lid_addresses(fixture("2sw2path4hca_lmc2_all.dump_fts")));
    }
}

TEST_CASE("dump_fts writer output parses back to the same tables")
{
    auto t = two_level(3, 2, 3);
    auto lids = simple_lids(t.fabric, 1);
    RoutingTables tables;
    tables.linear_fdb_top = lids.top();
    std::uint8_t v = 0;
    for (auto sw : t.leaves) {
        Lft lft;
        lft.port.assign(static_cast<std::size_t>(lids.top().value()) + 1, no_route);
        for (std::size_t l = 1; l < lft.port.size(); l += 2) lft.port[l] = static_cast<std::uint8_t>(v++ % 6);
        tables.lfts.emplace(sw, lft);
    }
    std::ostringstream out;
    write_dump_fts(out, t.fabric, lids, tables);
    auto back = tables_from_dump(parse(out.str()), t.fabric, "ours");
    CHECK(back.linear_fdb_top == tables.linear_fdb_top);
    REQUIRE(back.lfts.size() == tables.lfts.size());
    for (const auto& [id, lft] : tables.lfts) CHECK(back.lfts.at(id).port == lft.port);
    CHECK(parse(out.str())[0].lid == lids.lids_of(pr(t.leaves[0], 0))->base);
}

TEST_CASE("dump_fts parser reports bad input with file and line")
{
    const std::string head = "Unicast lids [0x0-0x3] of switch Lid 1 guid 0x0000000000000001 (sw (a): b):\n"
                             "  Lid  Out   Destination\n"
                             "       Port     Info \n";
    SECTION("a description with parentheses and colons survives")
    {
        auto d = parse(head + "0x0001 000 : (Switch portguid 0x0000000000000001: 'sw')\n1 valid lids dumped \n");
        REQUIRE(d.size() == 1);
        CHECK(d[0].description == "sw (a): b");
        CHECK(d[0].lid == Lid(1));
    }
    SECTION("-n output (no destinations) and ibwarn noise")
    {
        auto d = parse("ibwarn: [1] sim_connect: attached\n" + head + "0x0001 000 \n0x0003 002 \n2 valid lids dumped \n");
        REQUIRE(d.size() == 1);
        CHECK(d[0].lft.at(Lid(3)) == 2);
    }
    SECTION("truncated")
    {
        CHECK_THROWS_WITH(parse(head + "0x0001 000 \n"),
                          Catch::Contains("test.dump:4: input ends inside the table of switch 0x0000000000000001"));
    }
    SECTION("count mismatch")
    {
        CHECK_THROWS_WITH(parse(head + "0x0001 000 \n2 valid lids dumped \n"),
                          Catch::StartsWith("test.dump:5: count line says 2 LIDs but 1 entries"));
    }
    SECTION("LID outside the header range")
    {
        CHECK_THROWS_WITH(parse(head + "0x0004 001 \n1 valid lids dumped \n"),
                          "test.dump:4: LID 4 outside the header range");
    }
    SECTION("duplicate LID")
    {
        CHECK_THROWS_WITH(parse(head + "0x0002 001 \n0x0002 003 \n2 valid lids dumped \n"),
                          "test.dump:5: LID 2 listed twice");
    }
    SECTION("garbage")
    {
        CHECK_THROWS_WITH(parse(head + "hello\n"), "test.dump:4: unrecognised line: 'hello'");
        CHECK_THROWS_WITH(parse("hello\n"), Catch::StartsWith("test.dump:1: expected a \"Unicast lids"));
        CHECK_THROWS_WITH(parse(head + "0x0001 999 \n"), Catch::StartsWith("test.dump:4: bad output port"));
        CHECK_THROWS_WITH(parse("Multicast mlids [0xc000-0xc3ff] of switch Lid 1 guid 0x1 (x):\n"),
                          Catch::Contains("multicast"));
    }
    SECTION("switch unknown to the topology")
    {
        auto e = ibsim_2sw2path4hca();
        auto d = parse(head + "0x0001 000 \n1 valid lids dumped \n");
        CHECK_THROWS_WITH(tables_from_dump(d, e.f, "test.dump"),
                          "test.dump:1: switch 0x0000000000000001 (sw (a): b) is not in the topology");
    }
}
