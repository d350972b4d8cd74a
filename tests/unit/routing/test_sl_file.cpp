// The SL file (routing/sl_file.h): a hand-written example, the round trip of
// dfsssp's SLs, and the reader's errors.
#include "routing/sl_file.h"

#include "lidassign/base_lids.h"
#include "routing/dfsssp.h"
#include "test_minhop_fabrics.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace ibsm;
using namespace ibsm::test;

namespace {

routing::SlFile read(const std::string& text, const Fabric& f)
{
    std::istringstream in(text);
    return routing::read_sl_file(in, "sl.txt", f);
}

std::string error_of(const std::string& text, const Fabric& f)
{
    try {
        read(text, f);
    } catch (const routing::SlFileError& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("SL file: the documented example reads as written")
{
    auto f = ring(3, 1); // switches 0x2001..0x2003, CAs 0x2004..0x2006
    auto s = read("# comment\n\nvls 3\nlids 8\n0x0000000000002004 1 0001201\n0x2001 0 2\n", f);
    CHECK(s.vls == 3);
    CHECK(s.sl.lid_limit() == 8);
    const PortRef ca{*f.find_node(Guid(0x2004)), PortNum(1)};
    const PortRef sw{*f.find_node(Guid(0x2001)), PortNum(0)};
    const std::uint8_t expected[8] = {0, 0, 0, 1, 2, 0, 1, 0};
    for (std::uint16_t lid = 0; lid < 8; ++lid) CHECK(s.sl.at(ca, Lid(lid)) == expected[lid]);
    CHECK(s.sl.at(sw, Lid(0)) == 2);
    CHECK(s.sl.at(sw, Lid(1)) == 0);
    // A source without a line has SL 0 everywhere.
    CHECK(s.sl.at(PortRef{*f.find_node(Guid(0x2005)), PortNum(1)}, Lid(3)) == 0);
}

TEST_CASE("SL file: dfsssp's SLs survive a write and a read")
{
    auto f = ring(5, 2);
    auto lids = lidassign::assign_base_lids(f, {}, {}).lids;
    routing::Options o;
    o.max_vls = 4;
    auto result = routing::DfssspEngine().compute(f, lids, o);
    REQUIRE(std::holds_alternative<routing::RoutingTables>(result));
    const auto& tables = std::get<routing::RoutingTables>(result);
    REQUIRE(tables.sl.max_sl() > 0);

    std::ostringstream out;
    routing::write_sl_file(out, f, tables);
    CHECK(out.str().starts_with("# ibsm SL file"));
    auto back = read(out.str(), f);
    CHECK(back.vls == tables.vls_used);
    CHECK(back.sl.lid_limit() == tables.sl.lid_limit());
    std::size_t nonzero = 0;
    for (auto src : tables.sl.sources())
        for (std::uint16_t lid = 0; lid < tables.sl.lid_limit(); ++lid) {
            CHECK(back.sl.at(src, Lid(lid)) == tables.sl.at(src, Lid(lid)));
            nonzero += tables.sl.at(src, Lid(lid)) != 0;
        }
    CHECK(nonzero > 0);
    // Writing what was read gives the same text.
    routing::RoutingTables again;
    again.sl = back.sl;
    again.vls_used = back.vls;
    std::ostringstream out2;
    routing::write_sl_file(out2, f, again);
    CHECK(out2.str() == out.str());
}

TEST_CASE("SL file: malformed input is an error naming the line")
{
    auto f = ring(3, 1);
    CHECK(error_of("0x2004 1 01\n", f) == "sl.txt:1: source line before the 'vls' and 'lids' lines");
    CHECK(error_of("vls 2\nlids 4\n0x2004 1 0g\n", f) == "sl.txt:3: bad SL digit 'g'");
    CHECK(error_of("vls 2\nlids 4\n0x2004 1 02\n", f) == "sl.txt:3: SL 2 not below 'vls' 2");
    CHECK(error_of("vls 2\nlids 4\n0x2004 1 01010\n", f) == "sl.txt:3: SL string longer than 'lids' (4)");
    CHECK(error_of("vls 2\nlids 4\n0x9999 1 01\n", f) == "sl.txt:3: node 0x0000000000009999 is not in the fabric");
    CHECK(error_of("vls 2\nlids 4\n0x2001 1 01\n", f) == "sl.txt:3: node 0x0000000000002001 has no source port 1");
    CHECK(error_of("vls 2\nlids 4\n0x2004 1 01\n0x2004 1 1\n", f) == "sl.txt:4: source 0x0000000000002004 port 1 given twice");
    CHECK(error_of("vls 2\nvls 3\n", f) == "sl.txt:2: 'vls' given twice");
    CHECK(error_of("vls 0\n", f) == "sl.txt:1: bad VL count '0'");
    CHECK(error_of("vls 2\nlids 4\n0x2004 1\n", f) == "sl.txt:3: expected '<node GUID> <port> <SLs>'");
    CHECK(error_of("vls 2\n", f) == "sl.txt:0: missing 'vls' or 'lids' line");
}
