// The path file (routing/path_file.h): written, read back and resolved to
// the same DLID map; malformed input names file and line.
#include "routing/path_file.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace ibsm;
using namespace ibsm::routing;
using topology::Fabric;
using topology::NodeId;
using topology::NodeType;
using topology::PortRef;

namespace {

PortRef pr(NodeId n, unsigned p) { return PortRef{n, PortNum(static_cast<std::uint8_t>(p))}; }

struct Small {
    Fabric f;
    NodeId sw;
    std::vector<PortRef> cas;
    PairDlids dl;
};

// One switch, three CAs; CA 0 owns 0x10..0x13, CA 1 0x20..0x21, CA 2 0x30.
Small small()
{
    Small s;
    s.sw = s.f.add_node(NodeType::switch_node, Guid(0x100), 3, "sw");
    for (unsigned i = 0; i < 3; ++i) {
        auto n = s.f.add_node(NodeType::ca, Guid(0x200 + i), 1, "h" + std::to_string(i));
        s.f.set_port_guid(pr(n, 1), Guid(0x300 + i));
        s.f.connect(pr(n, 1), pr(s.sw, 1 + i));
        s.cas.push_back(pr(n, 1));
    }
    s.dl.destinations = {{s.cas[0], Lid(0x10), 2}, {s.cas[1], Lid(0x20), 1}, {s.cas[2], Lid(0x30), 0}};
    s.dl.sources = {pr(s.sw, 0), s.cas[0], s.cas[1], s.cas[2]};
    std::sort(s.dl.sources.begin(), s.dl.sources.end());
    s.dl.offset.assign(s.dl.sources.size() * 3, PairDlids::no_path);
    for (std::size_t src = 0; src < s.dl.sources.size(); ++src)
        for (std::size_t d = 0; d < 3; ++d)
            if (s.dl.sources[src] != s.dl.destinations[d].port)
                s.dl.set(src, d, static_cast<std::uint8_t>((src + d) % (1u << s.dl.destinations[d].lmc)));
    return s;
}

PathFile read(const std::string& text)
{
    std::istringstream in(text);
    return read_path_file(in, "p.txt");
}

std::string header = "engine pathsel\ndestinations 2\ndst 0 0x0000000000000300 0x0010 2\ndst 1 0x0000000000000301 0x0020 1\n";

} // namespace

TEST_CASE("path file: written, read back and resolved to the same DLIDs")
{
    auto s = small();
    std::ostringstream out;
    write_path_file(out, s.f, s.dl, "pathsel");
    CHECK_THAT(out.str(), Catch::Contains("dst 0 0x0000000000000300 0x0010 2\n") &&
                              Catch::Contains("src 0x0000000000000100 "));
    std::istringstream in(out.str());
    const PathFile file = read_path_file(in, "paths.txt");
    CHECK(file.engine == "pathsel");
    REQUIRE(file.destinations.size() == 3);
    const PairDlids back = resolve_path_file(file, s.f, "paths.txt");
    CHECK(back.sources == s.dl.sources);
    REQUIRE(back.destinations.size() == 3);
    for (std::size_t d = 0; d < 3; ++d) {
        CHECK(back.destinations[d].port == s.dl.destinations[d].port);
        CHECK(back.destinations[d].base == s.dl.destinations[d].base);
        CHECK(back.destinations[d].lmc == s.dl.destinations[d].lmc);
    }
    CHECK(back.offset == s.dl.offset);
    // CA 1 (source index 2) to CA 0: offset (2 + 0) % 4 = 2 -> DLID 0x12.
    CHECK(back.dlid(2, 0) == Lid(0x12));
    CHECK_FALSE(back.dlid(1, 0)); // CA 0 to itself
}

TEST_CASE("path file reader: every malformed line is named by file and line")
{
    CHECK(read(header + "src 0x0000000000000302 0100\n").sources.size() == 1);
    CHECK_THROWS_WITH(read("destinations 2\ndst 1 0x300 0x10 0\n"),
                      "p.txt:2: destination index 1, expected 0");
    CHECK_THROWS_WITH(read("dst 0 0x300 0x10 0\n"), "p.txt:1: dst line before 'destinations N'");
    CHECK_THROWS_WITH(read("destinations 1\ndst 0 0x300 0x11 1\n"),
                      "p.txt:2: LID block 0x11 LMC 1 is not aligned within 1..0xBFFF");
    CHECK_THROWS_WITH(read("destinations 1\ndst 0 0x300 0x10 8\n"), "p.txt:2: bad LMC '8'");
    CHECK_THROWS_WITH(read(header + "src 0x302 0102\n"), "p.txt:5: offset 2 for destination 1 is outside its 2 LIDs");
    CHECK_THROWS_WITH(read(header + "src 0x302 01\n"),
                      "p.txt:5: offsets: 2 characters, expected 2 per destination (4)");
    CHECK_THROWS_WITH(read(header + "src 0x302 0x01\n"), "p.txt:5: bad offset '0x' for destination 0");
    CHECK_THROWS_WITH(read(header + "src 0x302 --00\nsrc 0x302 --00\n"),
                      "p.txt:6: source 0x0000000000000302 given twice");
    CHECK_THROWS_WITH(read(header + "paths 3\n"), "p.txt:5: unknown line 'paths'");
    CHECK_THROWS_WITH(read("engine a\ndestinations 2\ndst 0 0x300 0x10 0\n"),
                      "p.txt:0: fewer dst lines than 'destinations' 2");
    CHECK_THROWS_WITH(read("# nothing\n"), "p.txt:0: missing 'destinations N'");
    CHECK_THROWS_WITH(read("destinations 1\ndst 0 0x300 0x10 0\ndst 1 0x301 0x20 0\n"),
                      "p.txt:3: more dst lines than 'destinations' 1");
}

TEST_CASE("path file resolution names a GUID the fabric lacks")
{
    auto s = small();
    CHECK_THROWS_WITH(resolve_path_file(read(header + "src 0x999 0000\n"), s.f, "p.txt"),
                      "p.txt: port GUID 0x0000000000000999 is not in the fabric");
}
