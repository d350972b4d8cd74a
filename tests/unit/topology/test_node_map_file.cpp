// infiniband-diags' node map format (topology/node_map_file.h): the
// node-name-map and OpenSM's GUID files.
#include "topology/node_map_file.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <stdexcept>

using namespace ibsm;

namespace {

topology::NodeNameMap names_of(const std::string& text)
{
    std::istringstream in(text);
    return topology::parse_node_name_map(in, "map");
}

std::string error_of(const std::string& text, bool guid_file)
{
    std::istringstream in(text);
    try {
        if (guid_file)
            topology::parse_guid_file(in, "guids");
        else
            topology::parse_node_name_map(in, "map");
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "no error";
}

std::string name_of(const topology::NodeNameMap& m, std::uint64_t guid)
{
    const std::string* n = m.find(Guid(guid));
    return n ? *n : "(none)";
}

} // namespace

TEST_CASE("node-name-map: the lines ibnetdiscover's man page shows, comments, quotes and blank lines")
{
    const auto m = names_of("# ibnetdiscover node-name-map\n"
                            "0x0008f10400411a08 \"SW1  (Rack 1)\"\n"
                            "\n"
                            "   0x0008f10400411b10   \"host-0002 mlx5_0\"   # second\n"
                            "0x0008f10400411c12 leaf-3 # unquoted, up to the comment\n"
                            "1234 \"decimal\"\n"
                            "0x22\n"                      // a GUID without a name names nothing
                            "0x0008f10400411a08 \"again\"\n" // the first name of a GUID wins
                            "0x33\t\"tab\"\r\n");
    CHECK(m.size() == 5);
    CHECK(name_of(m, 0x0008f10400411a08) == "SW1  (Rack 1)");
    CHECK(name_of(m, 0x0008f10400411b10) == "host-0002 mlx5_0");
    CHECK(name_of(m, 0x0008f10400411c12) == "leaf-3");
    CHECK(name_of(m, 1234) == "decimal");
    CHECK(name_of(m, 0x22) == "(none)");
    CHECK(name_of(m, 0x33) == "tab");
}

TEST_CASE("node-name-map: a line that does not start with a GUID names file and line")
{
    CHECK(error_of("0x1 \"a\"\nhost-1 0x2\n", false) ==
          "map:2: expected a GUID (0x... hex or decimal, not 0) at the start of the line, got 'host-1 0x2'");
    CHECK(error_of("0x1zz \"a\"\n", false) ==
          "map:1: expected a GUID (0x... hex or decimal, not 0) at the start of the line, got '0x1zz \"a\"'");
    CHECK(error_of("\n\n0 \"zero\"\n", false).starts_with("map:3: expected a GUID"));
    CHECK(error_of("0x123456789abcdef01 \"too long\"\n", false).starts_with("map:1: "));
    CHECK(error_of("-1 \"negative\"\n", false).starts_with("map:1: "));
}

TEST_CASE("GUID files: OpenSM's cn/io/routing-order files, the rest of a line ignored, order kept, repeats once")
{
    std::istringstream in("# compute nodes\n0x0002c90300000003 host-3\n0x0002c90300000001\n"
                          "0x0002c90300000003 # again\n\n  0x0002c90300000002#x\n");
    const auto g = topology::parse_guid_file(in, "cn");
    REQUIRE(g.size() == 3);
    CHECK(g[0] == Guid(0x0002c90300000003));
    CHECK(g[1] == Guid(0x0002c90300000001));
    CHECK(g[2] == Guid(0x0002c90300000002));
    CHECK(error_of("0x1\nsw-2\n", true) ==
          "guids:2: expected a GUID (0x... hex or decimal, not 0) at the start of the line, got 'sw-2'");
}

TEST_CASE("node names on a fabric: set from the map, cleared by a map without them; the description stays")
{
    topology::Fabric f;
    const auto sw = f.add_node(topology::NodeType::switch_node, Guid(0x10), 4, "MF0;sw-10:SX6036/U1");
    const auto ca = f.add_node(topology::NodeType::ca, Guid(0x20), 1, "node20 HCA-1");
    topology::NodeNameMap m;
    m.add(Guid(0x10), "spine-1");
    topology::apply_node_names(f, m);
    CHECK(topology::display_name(f.node(sw)) == "spine-1");
    CHECK(f.node(sw).description == "MF0;sw-10:SX6036/U1");
    CHECK(topology::display_name(f.node(ca)) == "node20 HCA-1");
    topology::apply_node_names(f, topology::NodeNameMap{});
    CHECK(topology::display_name(f.node(sw)) == "MF0;sw-10:SX6036/U1");
}
