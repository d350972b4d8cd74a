// P_Key table indexes kept across partition changes (pkey_indexes.h): a
// key that stays keeps its index on every port, whatever was added or
// removed around it; new keys go after the highest index used.
#include "partition/conf_parse.h"
#include "partition/partitions.h"
#include "partition/pkey_indexes.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::partition;

namespace {

using Keys = std::vector<std::uint16_t>;

Partitions resolve(const std::string& text, const std::vector<EndPort>& ports)
{
    auto r = parse_partitions_conf(text, "p.conf");
    REQUIRE(r.ok());
    return Partitions(effective_rules(r.rules, true), ports, Settings{Guid(1), false});
}

Keys cut(std::vector<std::uint16_t> t)
{
    while (!t.empty() && t.back() == 0) t.pop_back();
    return t;
}

} // namespace

TEST_CASE("A partition that stays keeps its index on every port across a change")
{
    const std::vector<EndPort> ports{{Guid(1), PortKind::ca}, {Guid(0x10), PortKind::ca}, {Guid(0x11), PortKind::ca}};
    IndexBook book;
    auto tables = [&](const Partitions& p) {
        std::map<Guid, Keys> out;
        for (const auto& e : ports) out[e.guid] = cut(book.place(e.guid, 1, p.keys_of(e.guid), p.index0_key(e.guid), 64).entries);
        return out;
    };
    const auto before = resolve("A=0x0001 : 0x10=full, 0x11 ;\n"
                                "B=0x0002 : 0x10, 0x11=full ;\n"
                                "C=0x0003, ipoib : ALL ;\n",
                                ports);
    auto t = tables(before);
    CHECK(t[Guid(0x10)] == Keys{0x7fff, 0x8001, 0x0002, 0x0003});
    CHECK(t[Guid(0x11)] == Keys{0x7fff, 0x0001, 0x8002, 0x0003});
    // A removed, D added, 0x10 moves to full in B.
    const auto after = resolve("B=0x0002 : 0x10=full, 0x11=full ;\n"
                               "C=0x0003, ipoib : ALL ;\n"
                               "D=0x0004 : 0x10 ;\n",
                               ports);
    t = tables(after);
    // B and C where they were; A's entry emptied (not reused while there is
    // room); D after the highest index ever used.
    CHECK(t[Guid(0x10)] == Keys{0x7fff, 0x0000, 0x8002, 0x0003, 0x0004});
    CHECK(t[Guid(0x11)] == Keys{0x7fff, 0x0000, 0x8002, 0x0003});
    CHECK(book.index_of(Guid(0x10), 1, 0x0003) == std::size_t{3});
    // A back: its old index.
    t = tables(resolve("A=0x0001 : 0x10 ;\nB=0x0002 : 0x10=full, 0x11=full ;\nC=0x0003 : ALL ;\nD=0x0004 : 0x10 ;\n",
                       ports));
    CHECK(t[Guid(0x10)] == Keys{0x7fff, 0x0001, 0x8002, 0x0003, 0x0004});

    // What changed, per partition.
    const auto c = changes(before, after, ports);
    REQUIRE(c.size() == 3);
    CHECK(c[0].text() == "partition A (0x0001) removed: 2 port(s) lose it");
    CHECK(c[1].text() == "partition B (0x0002) changed: 1 now full");
    CHECK(c[2].text() == "partition D (0x0004) added: 1 member port(s)");
}

TEST_CASE("Index 0 holds the indx0 key or the default partition; a full table reuses freed entries")
{
    IndexBook book;
    // A port whose key at index 0 was not the default partition's moves it.
    CHECK(cut(book.place(Guid(5), 1, {0x8001, 0xffff}, 0, 64).entries) == Keys{0xffff, 0x8001});
    CHECK(cut(book.place(Guid(5), 1, {0x8001, 0xffff}, 0x8001, 64).entries) == Keys{0x8001, 0xffff});
    // Capacity 4: new keys past it take free entries from index 1.
    IndexBook small;
    CHECK(small.place(Guid(6), 1, {0x0001, 0x0002, 0x0003, 0x7fff}, 0, 4).entries.size() == 32);
    CHECK(cut(small.place(Guid(6), 1, {0x0001, 0x0002, 0x0003, 0x7fff}, 0, 4).entries) ==
          Keys{0x7fff, 0x0001, 0x0002, 0x0003});
    auto t = small.place(Guid(6), 1, {0x0001, 0x0004, 0x0003, 0x7fff}, 0, 4);
    CHECK(cut(t.entries) == Keys{0x7fff, 0x0001, 0x0004, 0x0003});
    CHECK(t.dropped == 0);
    t = small.place(Guid(6), 1, {0x0001, 0x0004, 0x0003, 0x0005, 0x7fff}, 0, 4);
    CHECK(t.dropped == 1);
    // A table that grew to two blocks keeps being written as two when it
    // shrinks, so the emptied entries are cleared on the port.
    IndexBook big;
    Keys many{0x7fff};
    for (std::uint16_t k = 1; k <= 40; ++k) many.push_back(k);
    CHECK(big.place(Guid(7), 1, many, 0, 128).entries.size() == 64);
    CHECK(big.place(Guid(7), 1, {0x7fff}, 0, 128).entries.size() == 64);
    big.forget(Guid(7), 1);
    CHECK(big.place(Guid(7), 1, {0x7fff}, 0, 128).entries.size() == 32);
}

TEST_CASE("A switch port facing a CA holds the CA's keys packed, full ones over limited")
{
    const auto t = peer_table({0x7fff, 0x0000, 0x0001, 0x8001, 0x8002}, 8);
    CHECK(cut(t.entries) == Keys{0x7fff, 0x8001, 0x8002});
    const auto small = peer_table({0x7fff, 0x0001, 0x0002}, 2);
    CHECK(cut(small.entries) == Keys{0x7fff, 0x0001});
    CHECK(small.dropped == 1);
}

TEST_CASE("A table read from the port keeps its keys at their indexes; keys no longer wanted are written empty")
{
    IndexBook book;
    CHECK_FALSE(book.knows(Guid(0x10), 1));
    // Another SM (or this SM's last process) left 0x8002 at 3 and 0x8005 at 40.
    Keys held(64, 0);
    held[0] = 0xffff;
    held[3] = 0x8002;
    held[40] = 0x8005;
    book.learn(Guid(0x10), 1, held);
    CHECK(book.knows(Guid(0x10), 1));
    CHECK(book.index_of(Guid(0x10), 1, 0x8002) == 3u);
    // The new configuration: 0x0001 first, 0x0002 kept, 0x0005 gone.
    const auto t = book.place(Guid(0x10), 1, {0xffff, 0x8001, 0x8002}, 0, 64);
    REQUIRE(t.entries.size() == 64); // block 1 is written, its 0x8005 emptied
    CHECK(t.entries[0] == 0xffff);
    CHECK(t.entries[3] == 0x8002);
    CHECK(t.entries[41] == 0x8001); // after the highest index ever used
    CHECK(t.entries[40] == 0);
}
