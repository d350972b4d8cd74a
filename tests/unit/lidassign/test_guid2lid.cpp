#include "lidassign/guid2lid.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace ibsm;
using namespace ibsm::lidassign;
using topology::Fabric;
using topology::NodeType;
using topology::PortRef;

namespace {

GuidLidMap read(const std::string& text)
{
    std::istringstream in(text);
    return read_guid2lid(in, "g2l");
}

} // namespace

TEST_CASE("guid2lid reads OpenSM's cache file")
{
    const std::string path = std::string(IBSM_LIDASSIGN_TEST_DATA) + "/2sw2path4hca_lmc2.guid2lid";
    std::ifstream in(path);
    REQUIRE(in);
    auto m = read_guid2lid(in, path);
    CHECK(m.size() == 6);
    CHECK(m.at(Guid(0x100004)) == Lid(4));
    CHECK(m.at(Guid(0x10000a)) == Lid(0x10));
    CHECK(m.at(Guid(0x200001)) == Lid(3));
}

TEST_CASE("guid2lid written by us reads back and looks like OpenSM's")
{
    Fabric f;
    auto sw = f.add_node(NodeType::switch_node, Guid(0x200000), 4);
    auto ca = f.add_node(NodeType::ca, Guid(0x100000), 1);
    f.set_port_guid({ca, PortNum(1)}, Guid(0x100001));
    f.connect({ca, PortNum(1)}, {sw, PortNum(1)});
    LidMap lids;
    lids.assign({sw, PortNum(0)}, Lid(1), 0);
    lids.assign({ca, PortNum(1)}, Lid(8), 2);
    std::ostringstream out;
    write_guid2lid(out, f, lids);
    CHECK(out.str() == "0x0000000000100001 0x0008 0x000b\n\n0x0000000000200000 0x0001 0x0001\n\n");
    auto back = read(out.str());
    CHECK(back == GuidLidMap{{Guid(0x100001), Lid(8)}, {Guid(0x200000), Lid(1)}});
}

TEST_CASE("guid2lid rejects malformed lines with file and line")
{
    CHECK(read("# comment\n\n0x1 0x2 0x2 # trailing\n").size() == 1);
    CHECK_THROWS_WITH(read("0x1 0x2\n"), "g2l:1: expected \"0x<port guid> 0x<base lid> 0x<last lid>\"");
    CHECK_THROWS_WITH(read("\n0x1 2 0x2\n"), Catch::StartsWith("g2l:2: expected"));
    CHECK_THROWS_WITH(read("0x1 0x4 0x3\n"), "g2l:1: LID range 0x4..0x3 is not within 1..0xBFFF");
    CHECK_THROWS_WITH(read("0x1 0x0 0x0\n"), Catch::Contains("not within"));
    CHECK_THROWS_WITH(read("0x1 0xbfff 0xc000\n"), Catch::Contains("not within"));
    CHECK_THROWS_WITH(read("0x1 0x1 0x1\n0x1 0x2 0x2\n"), "g2l:2: port GUID 0x0000000000000001 listed twice");
}
