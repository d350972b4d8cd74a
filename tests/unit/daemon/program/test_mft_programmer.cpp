// The MFT programmer against a scripted switch: only (block, position)
// entries that differ from what the switch confirmed are sent, a freed MLID
// is cleared, a refused or garbled Set leaves its block dirty for the next
// round and the next call, and forget() makes a switch's tables unknown.
#include "../support/fake_loop.h"

#include "daemon/program/mft_programmer.h"
#include "mad/multicast_forwarding_table.h"
#include "mad/switch_info.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace ibsm;

namespace {

using Key = std::pair<std::uint32_t, std::uint8_t>; // block, position

// The SM's CA on port 1 of one switch with `ports` ports.
struct McastFabric {
    daemon::DiscoveryResult found;
    topology::NodeId sw;

    explicit McastFabric(std::uint8_t ports, std::uint16_t mcast_cap = 1024)
    {
        auto& f = found.fabric;
        auto ca = f.add_node(topology::NodeType::ca, Guid(0x100), 1);
        sw = f.add_node(topology::NodeType::switch_node, Guid(0x200), ports, "leaf");
        f.connect({ca, PortNum(1)}, {sw, PortNum(1)});
        found.paths = {DrPath{}, DrPath{}.extended(PortNum(1))};
        found.sm_port = {ca, PortNum(1)};
        mad::SwitchInfo si;
        si.multicast_fdb_cap = mcast_cap;
        found.switch_info[sw] = si;
    }
};

// The switch's MFT by (block, position). `refuse` lists blocks whose next
// Set gets a bad status; `garble` blocks whose next Set stores (and
// answers) something else than was asked.
struct FakeMftSwitch {
    std::map<Key, mad::MulticastForwardingTable> table;
    std::multiset<std::uint32_t> refuse, garble;
    std::vector<Key> sets;

    std::vector<mad::RawReceive> handle(const mad::Smp& req)
    {
        REQUIRE(req.attr_id() == mad::attr_multicast_forwarding_table);
        REQUIRE(req.method() == static_cast<std::uint8_t>(mad::Method::set));
        const Key key{req.attr_mod() & 0x1ff, static_cast<std::uint8_t>(req.attr_mod() >> 28)};
        sets.push_back(key);
        std::uint16_t status = 0;
        if (auto it = refuse.find(key.first); it != refuse.end()) {
            refuse.erase(it);
            status = 0x001c;
        } else {
            auto t = *mad::decode_multicast_forwarding_table(req.data());
            if (auto g = garble.find(key.first); g != garble.end()) {
                garble.erase(g);
                t.masks[31] ^= 0x8000;
            }
            table[key] = t;
        }
        std::array<std::uint8_t, 64> data{};
        mad::encode(table[key], std::span<std::uint8_t, 64>(data));
        mad::RawReceive r;
        r.smp = mad::make_get_resp(req, data, status);
        r.length = mad::mad_size;
        return {r};
    }

    // The ports the switch forwards `mlid` to, as a mask of positions 0..1.
    std::uint32_t ports_of(std::uint16_t mlid) const
    {
        const auto block = mad::mft_block_of(Lid(mlid));
        const auto i = mad::mft_index_of(Lid(mlid));
        std::uint32_t out = 0;
        for (std::uint8_t p = 0; p < 2; ++p)
            if (auto it = table.find({block, p}); it != table.end())
                out |= std::uint32_t{it->second.masks[i]} << (16 * p);
        return out;
    }
};

mcast::PortMask mask(std::initializer_list<std::uint8_t> ports)
{
    mcast::PortMask m;
    for (auto p : ports) m.set(p);
    return m;
}

daemon::MftReport program(test::Loop& loop, daemon::MftProgrammer& p, const McastFabric& f,
                          const std::map<std::uint16_t, mcast::PortMask>& masks, Lid top)
{
    daemon::SwitchMasks all;
    if (!masks.empty()) all[f.sw] = masks;
    return loop.run([&] { return p.program(loop.transport, f.found, all, top); });
}

} // namespace

TEST_CASE("a fresh switch gets every block up to the highest MLID, each position; a second call sends nothing",
          "[mft]")
{
    McastFabric f(20); // ports 0..20: positions 0 and 1
    FakeMftSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    daemon::MftProgrammer p(daemon::MftSettings{3, 8});
    const std::map<std::uint16_t, mcast::PortMask> masks{{0xC000, mask({1, 2})}, {0xC021, mask({0, 18})}};

    const auto first = program(loop, p, f, masks, Lid(0xC021));
    CHECK(first.complete());
    CHECK(first.switches == 1);
    CHECK(first.blocks_desired == 4); // blocks 0 and 1, positions 0 and 1
    CHECK(first.blocks_sent == 4);
    CHECK(sw.ports_of(0xC000) == 0b110);
    CHECK(sw.ports_of(0xC021) == (1u | 1u << 18));
    CHECK(sw.ports_of(0xC001) == 0);
    // Block-major: block 0 (both positions) before block 1.
    REQUIRE(sw.sets.size() == 4);
    CHECK(sw.sets[0].first == 0);
    CHECK(sw.sets[1].first == 0);
    CHECK(sw.sets[3].first == 1);

    const auto second = program(loop, p, f, masks, Lid(0xC021));
    CHECK(second.complete());
    CHECK(second.blocks_sent == 0);
    CHECK(sw.sets.size() == 4);
}

TEST_CASE("a join sends only the block and position it changes; a freed MLID is cleared", "[mft]")
{
    McastFabric f(20);
    FakeMftSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    daemon::MftProgrammer p(daemon::MftSettings{3, 8});
    std::map<std::uint16_t, mcast::PortMask> masks{{0xC000, mask({1})}, {0xC021, mask({1})}};
    REQUIRE(program(loop, p, f, masks, Lid(0xC021)).complete());
    sw.sets.clear();

    masks[0xC021].set(3); // a host behind port 3 joins the second group
    const auto join = program(loop, p, f, masks, Lid(0xC021));
    CHECK(join.complete());
    CHECK(join.blocks_sent == 1);
    CHECK(sw.sets == std::vector<Key>{{1, 0}});
    CHECK(sw.ports_of(0xC021) == 0b1010);

    // The second group is deleted: its block is still written (cleared),
    // although the highest MLID in use is now in block 0.
    sw.sets.clear();
    masks.erase(0xC021);
    const auto leave = program(loop, p, f, masks, Lid(0xC000));
    CHECK(leave.complete());
    CHECK(leave.blocks_sent == 1);
    CHECK(sw.sets == std::vector<Key>{{1, 0}});
    CHECK(sw.ports_of(0xC021) == 0);
    CHECK(sw.ports_of(0xC000) == 0b10);

    // Nothing in use any more: block 0 is cleared, then nothing is desired.
    sw.sets.clear();
    const auto none = program(loop, p, f, {}, Lid());
    CHECK(none.complete());
    CHECK(sw.sets == std::vector<Key>{{0, 0}});
    CHECK(sw.ports_of(0xC000) == 0);
    sw.sets.clear();
    const auto idle = program(loop, p, f, {}, Lid());
    CHECK(idle.blocks_desired == 0);
    CHECK(sw.sets.empty());
}

TEST_CASE("a refused MFT Set is retried next round; one refused every round stays dirty until the next call",
          "[mft]")
{
    McastFabric f(4);
    FakeMftSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    daemon::MftProgrammer p(daemon::MftSettings{3, 8});
    const std::map<std::uint16_t, mcast::PortMask> masks{{0xC000, mask({1})}, {0xC040, mask({2})}};

    SECTION("once: the second round confirms it")
    {
        sw.refuse = {1};
        const auto r = program(loop, p, f, masks, Lid(0xC040));
        CHECK(r.complete());
        CHECK(r.blocks_desired == 3);
        CHECK(r.blocks_sent == 4);
        CHECK(r.failures.size() == 1);
        CHECK(sw.ports_of(0xC040) == 0b100);
    }
    SECTION("every round: dirty, reported with the block, sent again by the next call")
    {
        sw.refuse = {2, 2, 2};
        const auto r = program(loop, p, f, masks, Lid(0xC040));
        CHECK_FALSE(r.complete());
        CHECK(r.blocks_dirty == 1);
        CHECK(r.blocks_sent == 3 + 2);
        REQUIRE(r.failures.size() == 3);
        CHECK(r.failures[0] == "switch 0x0000000000000200 (leaf) MFT block 2 position 0: Set bad status 0x001c");
        CHECK(sw.ports_of(0xC040) == 0);
        sw.sets.clear();
        const auto again = program(loop, p, f, masks, Lid(0xC040));
        CHECK(again.complete());
        CHECK(sw.sets == std::vector<Key>{{2, 0}});
        CHECK(sw.ports_of(0xC040) == 0b100);
    }
    SECTION("answered with other content: not confirmed, sent again")
    {
        sw.garble = {0};
        const auto r = program(loop, p, f, masks, Lid(0xC040));
        CHECK(r.complete());
        CHECK(r.blocks_sent == 4);
        REQUIRE(r.failures.size() == 1);
        CHECK(r.failures[0].ends_with("MFT block 0 position 0: Set answered with other content"));
        CHECK(sw.table.at({0, 0}).masks[31] == 0);
    }
}

TEST_CASE("forget() makes a switch's MFT unknown: every block is sent again", "[mft]")
{
    McastFabric f(4);
    FakeMftSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    daemon::MftProgrammer p(daemon::MftSettings{3, 8});
    const std::map<std::uint16_t, mcast::PortMask> masks{{0xC000, mask({1})}};
    REQUIRE(program(loop, p, f, masks, Lid(0xC000)).blocks_sent == 1);
    sw.table.clear(); // the switch was reset
    p.forget(Guid(0x200));
    const auto r = program(loop, p, f, masks, Lid(0xC000));
    CHECK(r.blocks_sent == 1);
    CHECK(sw.ports_of(0xC000) == 0b10);
}

TEST_CASE("switches without multicast tables get nothing; blocks stop at MulticastFDBCap", "[mft]")
{
    FakeMftSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    daemon::MftProgrammer p(daemon::MftSettings{3, 8});
    const std::map<std::uint16_t, mcast::PortMask> masks{{0xC000, mask({1})}, {0xC050, mask({1})}};
    {
        McastFabric none(4, 0);
        const auto r = program(loop, p, none, masks, Lid(0xC050));
        CHECK(r.switches == 0);
        CHECK(r.blocks_sent == 0);
    }
    McastFabric small(4, 40); // two blocks: MLIDs 0xC000..0xC03F
    const auto r = program(loop, p, small, masks, Lid(0xC050));
    CHECK(r.complete());
    CHECK(r.blocks_desired == 2);
    CHECK(r.blocks_sent == 2);
    for (const auto& [block, position] : sw.sets) CHECK(block < 2);
}
