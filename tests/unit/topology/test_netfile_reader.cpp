#include "topology/netfile_reader.h"

#include "fabric_view.h"
#include "topology/gen_pgft.h"
#include "topology/netfile_file.h"
#include "topology/netfile_writer.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace ibsm;
using namespace ibsm::topology;
using namespace ibsm::topology::test;

namespace {

std::string fixture(const std::string& name) { return std::string(TOPOLOGY_FIXTURES) + "/" + name; }

Fabric parse(const std::string& text)
{
    std::istringstream in(text);
    return read_net(in, "test.net");
}

// Line number and message of the ParseError `text` raises.
std::pair<std::size_t, std::string> parse_error(const std::string& text)
{
    try {
        parse(text);
    } catch (const ParseError& e) {
        CHECK(e.file() == "test.net");
        CHECK(std::string(e.what()).rfind("test.net:" + std::to_string(e.line()) + ": ", 0) == 0);
        return {e.line(), e.message()};
    }
    FAIL("no ParseError for:\n" << text);
    return {};
}

const Node& node_of(const Fabric& f, std::uint64_t guid)
{
    auto id = f.find_node(Guid(guid));
    REQUIRE(id);
    return f.node(*id);
}

} // namespace

TEST_CASE("Reader numbers free-form ibsim names the way ibsim does")
{
    // ibsim's own example; ibnetdiscover against it showed these GUIDs.
    Fabric f = load_net_file(fixture("ibsim_example_net.net"));
    REQUIRE(f.node_count() == 4);
    CHECK(f.switch_count() == 2);
    CHECK(f.ca_count() == 2);
    CHECK(f.link_count() == 4);
    CHECK(node_of(f, 0x200000).description == "Switch1");
    CHECK(node_of(f, 0x200001).description == "Switch2");
    CHECK(node_of(f, 0x100000).description == "Hca1");
    CHECK(node_of(f, 0x100003).description == "Hca2"); // Hca1 (2 ports) took 0x100000..2
    CHECK(f.find_port(Guid(0x100005)) == PortRef{*f.find_node(Guid(0x100003)), PortNum(2)});
    // Every link ibsim simulates is 4x SDR unless told otherwise.
    CHECK(f.port({*f.find_node(Guid(0x200000)), PortNum(3)}).link_width_active == 2);
    CHECK(f.port({*f.find_node(Guid(0x200000)), PortNum(3)}).link_speed_active == 1);
}

TEST_CASE("Reader gives the same fabric for an ibsim example and ibnetdiscover's view of it")
{
    Fabric example = load_net_file(fixture("ibsim_example_net.net"));
    Fabric discovered = load_net_file(fixture("ibsim_net_nolids.net"));
    CHECK(nodes_by_guid(example) == nodes_by_guid(discovered));
    CHECK(links_by_guid(example) == links_by_guid(discovered));
}

TEST_CASE("Reader takes LIDs and LMC from real ibnetdiscover output")
{
    Fabric f = load_net_file(fixture("ibsim_net_lids.net"));
    REQUIRE(f.node_count() == 4);
    // File order is kept: ibnetdiscover listed Switch2 first.
    CHECK(f.node(NodeId{0}).guid == Guid(0x200001));
    const Node& sw1 = node_of(f, 0x200000);
    CHECK(sw1.port(PortNum(0)).lid == Lid(1));
    CHECK(sw1.port(PortNum(0)).lmc == 0);
    CHECK_FALSE(sw1.sw->enhanced_port0);
    CHECK(node_of(f, 0x200001).port(PortNum(0)).lid == Lid(3));
    CHECK(node_of(f, 0x100000).port(PortNum(1)).lid == Lid(8));
    CHECK(node_of(f, 0x100003).port(PortNum(2)).lid == Lid(2));
    CHECK(node_of(f, 0x100003).port(PortNum(2)).guid == Guid(0x100005));

    Fabric lmc = load_net_file(fixture("ibsim_2sw4hca2port_lmc1.net"));
    const Node& hca2 = node_of(lmc, 0x100003);
    CHECK(hca2.port(PortNum(1)).lid == Lid(50));
    CHECK(hca2.port(PortNum(2)).lid == Lid(52));
    CHECK(hca2.port(PortNum(1)).lmc == 1);
    CHECK(lmc.link_count() == 6);
    // Two cables between the same pair of switches.
    CHECK(lmc.remote({*lmc.find_node(Guid(0x200000)), PortNum(5)}) ==
          PortRef{*lmc.find_node(Guid(0x200001)), PortNum(5)});
}

TEST_CASE("ibsim presents the GUIDs, names and cables of a generated fabric")
{
    // Capture of ibnetdiscover on ibsim running our generated net file.
    PgftParams p{{4, 4}, {1, 2}, {1, 2}, true};
    Fabric generated = generate_pgft(p);
    Fabric seen = load_net_file(fixture("ibsim_pgft_4_4_1_2_1_2_dual_lids.net"));
    CHECK(links_by_guid(seen) == links_by_guid(generated));
    auto a = nodes_by_guid(generated);
    auto b = nodes_by_guid(seen);
    REQUIRE(a.size() == b.size());
    for (auto& [guid, view] : a) {
        REQUIRE(b.contains(guid));
        CHECK(b[guid].description == view.description);
        CHECK(b[guid].type == view.type);
        CHECK(b[guid].num_ports == view.num_ports);
        for (std::size_t i = 0; i < view.ports.size(); ++i) CHECK(b[guid].ports[i].guid == view.ports[i].guid);
    }
    // OpenSM gave every CA port and every switch a distinct LID.
    std::set<std::uint16_t> lids;
    for (const Node& n : seen.nodes()) {
        if (n.is_switch()) {
            CHECK(lids.insert(n.port(PortNum(0)).lid.value()).second);
        } else {
            for (std::uint8_t i = 1; i <= n.num_ports(); ++i) CHECK(lids.insert(n.port(PortNum(i)).lid.value()).second);
        }
    }
    CHECK_FALSE(lids.contains(0));
}

TEST_CASE("Reader accepts the format's optional pieces")
{
    SECTION("one-sided listing, default remote port, comments inside a record, CRLF")
    {
        Fabric f = parse("# header\r\n"
                         "Switch 4 \"sw\" # \"the switch\" enhanced port 0 lid 7 lmc 2\r\n"
                         "# a comment does not end the record\r\n"
                         "[2] \"ca\"\r\n"
                         "\r\n"
                         "Hca 1 \"ca\"\r\n");
        REQUIRE(f.node_count() == 2);
        const Node& sw = f.node(NodeId{0});
        CHECK(sw.description == "the switch");
        CHECK(sw.sw->enhanced_port0);
        CHECK(sw.port(PortNum(0)).lid == Lid(7));
        CHECK(sw.port(PortNum(0)).lmc == 2);
        CHECK(f.remote({NodeId{0}, PortNum(2)}) == PortRef{NodeId{1}, PortNum(1)});
        CHECK(f.node(NodeId{1}).description == "ca"); // no description: the name, as in ibsim
    }
    SECTION("GUID-form names without GUID lines")
    {
        Fabric f = parse("Switch 2 \"S-0000000000abcdef\"\n"
                         "[1] \"H-0000000000001200\"[1](1201)\n\n"
                         "Ca 1 \"H-0000000000001200\"\n"
                         "[1](1201) \"S-0000000000abcdef\"[1] # lid 9 lmc 0 \"x\" lid 4 4xQDR\n");
        CHECK(f.node(NodeId{0}).guid == Guid(0xabcdef));
        CHECK(f.node(NodeId{1}).guid == Guid(0x1200));
        CHECK(f.port({NodeId{1}, PortNum(1)}).lid == Lid(9));
        // The remote LID shown on the CA line fills in the switch's.
        CHECK(f.port({NodeId{0}, PortNum(0)}).lid == Lid(4));
        CHECK(f.port({NodeId{0}, PortNum(1)}).link_speed_active == 4);
        CHECK(f.port({NodeId{1}, PortNum(1)}).link_width_active == 2);
    }
    SECTION("rates as ibnetdiscover prints them")
    {
        Fabric f = parse("Switch 3 \"a\"\n[1] \"b\"[1] # \"b\" lid 0 12xEDR\n[2] \"b\"[2] # \"b\" lid 0 4xFDR10\n"
                         "[3] \"b\"[3] # \"b\" lid 0 1xDDR\n\nSwitch 3 \"b\"\n");
        CHECK(f.port({NodeId{0}, PortNum(1)}).link_width_active == 8);
        CHECK(f.port({NodeId{0}, PortNum(1)}).link_speed_ext_active == 2);
        CHECK(f.port({NodeId{1}, PortNum(1)}).link_speed_ext_active == 2); // one-sided: far end too
        CHECK(f.port({NodeId{0}, PortNum(2)}).link_speed_active == 4);
        CHECK(f.port({NodeId{0}, PortNum(3)}).link_width_active == 1);
        CHECK(f.port({NodeId{0}, PortNum(3)}).link_speed_active == 2);
    }
    SECTION("ibsim w=/s= options decide the simulated rate")
    {
        Fabric f = parse("Switch 2 \"a\"\n[1] \"b\"[1] w=8 s=4\n\nSwitch 2 \"b\"\n[1] \"a\"[1] w=12 s=6\n");
        CHECK(f.port({NodeId{0}, PortNum(1)}).link_width_active == 8); // 12x
        CHECK(f.port({NodeId{0}, PortNum(1)}).link_speed_active == 4); // QDR
    }
    SECTION("2x links (width 16): ibnetdiscover's 2xSDR, ibsim's w=16, and 12x preferred over 2x")
    {
        // Found by tests/fuzz/fuzz_netfile: a 2x link read from an
        // ibnetdiscover comment was written back as w=16, which the reader
        // refused (it took w=1..15; ibsim takes 1..31).
        Fabric f = parse("Switch 3 \"a\"\n[1] \"b\"[1] # \"b\" lid 0 2xSDR\n[2] \"b\"[2] w=16\n[3] \"b\"[3] w=24\n\n"
                         "Switch 3 \"b\"\n[2] \"a\"[2] w=18\n[3] \"a\"[3] w=31\n");
        CHECK(f.port({NodeId{0}, PortNum(1)}).link_width_active == 16);
        CHECK(f.port({NodeId{0}, PortNum(2)}).link_width_active == 16); // 2x+4x meets 2x
        CHECK(f.port({NodeId{0}, PortNum(3)}).link_width_active == 8);  // 2x+12x meets all: 12x
        CHECK(parse("width=16\nSwitch 2 \"a\"\n[1] \"b\"[1]\n\nSwitch 2 \"b\"\n")
                  .port({NodeId{0}, PortNum(1)})
                  .link_width_active == 16);
        // What the writer makes of it reads back the same.
        std::ostringstream out;
        write_net(out, f);
        Fabric back = parse(out.str());
        CHECK(back.port({*back.find_node(f.node(NodeId{0}).guid), PortNum(1)}).link_width_active == 16);
        CHECK(back.port({*back.find_node(f.node(NodeId{0}).guid), PortNum(3)}).link_width_active == 8);
    }
    SECTION("routers and relative GUID lines")
    {
        Fabric f = parse("switchguid=0x500\nSwitch 2 \"a\"\n[1] \"r\"[1]\n\n"
                         "switchguid+3\nSwitch 2 \"b\"\n\n"
                         "rtguid=0x900\nRt 1 \"r\"\n[1] \"a\"[1]\n");
        CHECK(f.node(NodeId{0}).guid == Guid(0x500));
        CHECK(f.node(NodeId{1}).guid == Guid(0x503));
        CHECK(f.node(NodeId{2}).type == NodeType::router);
        CHECK(f.node(NodeId{2}).port(PortNum(1)).guid == Guid(0x901));
    }
    SECTION("vendid/devid/sysimgguid apply to the next node only")
    {
        Fabric f = parse("vendid=0x2c9\ndevid=0xbd36\nsysimgguid=0x77\nSwitch 2 \"a\"\n\nSwitch 2 \"b\"\n");
        CHECK(f.node(NodeId{0}).vendor_id == 0x2c9);
        CHECK(f.node(NodeId{0}).device_id == 0xbd36);
        CHECK(f.node(NodeId{0}).system_guid == Guid(0x77));
        CHECK(f.node(NodeId{1}).vendor_id == 0);
        CHECK(f.node(NodeId{1}).system_guid == f.node(NodeId{1}).guid);
    }
}

TEST_CASE("Reader rejects bad input with the line that is wrong")
{
    struct Case {
        const char* text;
        std::size_t line;
        const char* message_part;
    };
    const Case cases[] = {
        {"Switch 4 \"a\"\n[1] \"b\"[1]\n\nSwitch 4 \"b\"\n[1] \"a\"[2]\n", 2, "but line 5 cables"},
        {"Switch 4 \"a\"\n[1] \"nowhere\"[1]\n", 2, "unknown node \"nowhere\""},
        {"Switch 4 \"a\"\n[5] \"a\"[1]\n", 2, "beyond the node's 4 ports"},
        {"Switch 4 \"a\"\n[1] \"b\"[9]\n\nSwitch 4 \"b\"\n", 2, "has no port 9"},
        {"Switch 4 \"a\"\n\n[1] \"a\"[2]\n", 3, "outside a node record"},
        {"Switch 4 \"a\"\n\nCa 1 \"a\"\n", 3, "defined twice (first at line 1)"},
        {"\n\nSwitch 0 \"a\"\n", 3, "out of range"},
        {"Switch x \"a\"\n", 1, "bad port count"},
        {"Swtich 4 \"a\"\n", 1, "unrecognised line"},
        {"switchguid=0x10\nSwitch 4 \"S-0000000000000020\"\n", 2, "says 0x0000000000000020"},
        {"Switch 4 \"H-0000000000000020\"\n", 1, "prefix of a CA"},
        {"Switch 4 \"a\"\n[1] \"a\"[2]\n[1] \"a\"[3]\n", 3, "listed twice (also line 2)"},
        {"include \"other.net\"\n", 1, "not supported"},
        {"Switch 4 \"a\n", 1, "closing quote"},
        {"Switch 4 \"a\"\n[1](1234) \"a\"[2]\n", 2, "share the node GUID"},
        {"Switch 4 \"a\"\n[1] \"a\"[1]\n", 2, "cabled to itself"},
        {"Switch 4 \"a\"\n[0] \"a\"[1]\n", 2, "port 0 cannot be cabled"},
        {"Rt 1 \"r\"\n", 1, "has no GUID"},
        {"Switch 2 \"a\"\n[1] \"b\"[1] w=8\n\nSwitch 2 \"b\"\n[1] \"a\"[1]\n", 2, "no common link width"},
        {"Switch 2 \"a\"\n[1] \"b\"[1] x=1\n", 2, "unexpected text"},
        {"Ca 2 \"c\"\n[1](5) \"s\"[1]\n\nSwitch 2 \"s\"\n[1] \"c\"[1](6)\n", 5, "contradicts"},
        {"Switch 2 \"a\"\n[1] \"c\"[1]\n\nSwitch 2 \"b\"\n[1] \"c\"[1]\n\nCa 1 \"c\"\n", 5, "already cabled"},
        {"Ca 1 \"x\"\n\nCa 1 \"y\"\n[1](100001) \"x\"[1]\n", 1, "would get GUID"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto [line, message] = parse_error(c.text);
        CHECK(line == c.line);
        CHECK_THAT(message, Catch::Contains(c.message_part));
    }
}

TEST_CASE("load_net_file reports a missing file")
{
    CHECK_THROWS_AS(load_net_file(fixture("does-not-exist.net")), ParseError);
}
