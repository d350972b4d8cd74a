// The LFT programmer against a scripted switch: desired vs confirmed per
// block, retries of rejected Sets, a restart that rewrites nothing the switch
// already holds.
#include "../support/fake_loop.h"

#include "../support/one_switch.h"

#include "daemon/program/lft_programmer.h"
#include "mad/linear_forwarding_table.h"
#include "mad/switch_info.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace ibsm;
using ibsm::test::OneSwitch;

namespace {

// One switch behind port 1 of the SM's CA: its LFT blocks and SwitchInfo.
// `fail_sets` lists block numbers whose next Set is answered with a bad status.
struct FakeSwitch {
    std::map<std::uint32_t, mad::LinearForwardingTable> blocks;
    mad::SwitchInfo info;
    std::multiset<std::uint32_t> fail_sets;
    unsigned lft_gets = 0, lft_sets = 0, si_sets = 0;

    std::vector<mad::RawReceive> handle(const mad::Smp& req)
    {
        std::array<std::uint8_t, 64> data{};
        std::uint16_t status = 0;
        const bool set = req.method() == static_cast<std::uint8_t>(mad::Method::set);
        if (req.attr_id() == mad::attr::linear_forwarding_table) {
            const auto b = req.attr_mod();
            if (set) {
                ++lft_sets;
                if (auto it = fail_sets.find(b); it != fail_sets.end()) {
                    fail_sets.erase(it);
                    status = 0x001c;
                } else {
                    blocks[b] = *mad::decode_linear_forwarding_table(req.data());
                }
            } else {
                ++lft_gets;
            }
            mad::LinearForwardingTable t;
            t.ports.fill(mad::lft_no_route);
            if (auto it = blocks.find(b); it != blocks.end()) t = it->second;
            mad::encode(t, std::span<std::uint8_t, 64>(data));
        } else if (req.attr_id() == mad::attr::switch_info) {
            if (set) {
                ++si_sets;
                auto in = *mad::decode_switch_info(req.data());
                info.linear_fdb_top = in.linear_fdb_top;
                info.life_time_value = in.life_time_value;
            }
            mad::encode(info, std::span<std::uint8_t, 64>(data));
        }
        mad::RawReceive r;
        r.smp = mad::make_get_resp(req, data, status);
        r.length = mad::mad_size;
        return {r};
    }
};

daemon::LftReport program(test::Loop& loop, daemon::LftProgrammer& p, const OneSwitch& s)
{
    // A new copy each time, as each sweep routes into tables of its own.
    return loop.run([&] { return p.program(loop.transport, s.found, std::make_shared<const routing::RoutingTables>(s.tables)); });
}

} // namespace

TEST_CASE("desired_blocks covers LIDs 0..top in blocks of 64, unrouted entries 0xFF", "[lft]")
{
    routing::Lft lft;
    lft.port = {routing::no_route, 3, 4};
    auto blocks = daemon::desired_blocks(lft, Lid(64));
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[0].ports[1] == 3);
    CHECK(blocks[0].ports[2] == 4);
    CHECK(blocks[0].ports[3] == mad::lft_no_route);
    CHECK(blocks[1].ports[0] == mad::lft_no_route);
}

TEST_CASE("desired_block reads one block straight from the table, a partial last block padded", "[lft]")
{
    routing::Lft lft;
    lft.port.assign(70, 0);
    for (std::size_t i = 0; i < lft.port.size(); ++i) lft.port[i] = static_cast<std::uint8_t>(1 + i % 36);
    const auto second = daemon::desired_block(lft, 1);
    for (std::size_t i = 0; i < 6; ++i) CHECK(second.ports[i] == lft.port[64 + i]);
    for (std::size_t i = 6; i < mad::lft_block_size; ++i) CHECK(second.ports[i] == mad::lft_no_route);
    const auto beyond = daemon::desired_block(lft, 2);
    for (auto port : beyond.ports) CHECK(port == mad::lft_no_route);
    CHECK(daemon::desired_blocks(lft, Lid(69))[1] == second);
}

TEST_CASE("a fresh switch gets every block and LinearFDBTop; a second sweep sends nothing", "[lft]")
{
    OneSwitch s(0);
    FakeSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    daemon::LftProgrammer p(daemon::LftSettings{18, 3, 16});

    auto first = program(loop, p, s);
    CHECK(first.complete());
    CHECK(first.blocks_sent == 3);
    CHECK(first.blocks_read == 0);
    CHECK(first.switch_info_sent == 1);
    CHECK(sw.info.linear_fdb_top == 130);
    CHECK(sw.info.life_time_value == 18);
    CHECK(sw.blocks.at(2).ports[130 - 128] == 1 + 130 % 4);

    s.found.switch_info[s.sw] = sw.info; // what the next discovery reads
    auto second = program(loop, p, s);
    CHECK(second.complete());
    CHECK(second.blocks_sent == 0);
    CHECK(second.switch_info_sent == 0);
    CHECK(sw.lft_sets == 3);
}

TEST_CASE("a restarted daemon reads a programmed switch and sends only the blocks that differ", "[lft]")
{
    OneSwitch s(0);
    FakeSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    {
        daemon::LftProgrammer before(daemon::LftSettings{18, 3, 16});
        REQUIRE(program(loop, before, s).complete());
    }
    // Someone changed one entry of block 1 while we were away.
    sw.blocks[1].ports[5] = 4 == sw.blocks[1].ports[5] ? 3 : 4;
    s.found.switch_info[s.sw] = sw.info;
    daemon::LftProgrammer after(daemon::LftSettings{18, 3, 16});
    auto r = program(loop, after, s);
    CHECK(r.complete());
    CHECK(r.blocks_read == 3);
    CHECK(r.blocks_sent == 1);
    CHECK(r.switch_info_sent == 0);
    CHECK(sw.blocks.at(1).ports[5] == 1 + (64 + 5) % 4);
}

TEST_CASE("confirmed blocks are kept as digests: one changed entry, or two swapped, sends that block again", "[lft]")
{
    OneSwitch s(0);
    FakeSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    daemon::LftProgrammer p(daemon::LftSettings{18, 3, 16});
    REQUIRE(program(loop, p, s).complete());
    s.found.switch_info[s.sw] = sw.info;
    auto& ports = s.tables.lfts.at(s.sw).port;

    ports[70] = ports[70] == 1 ? 2 : 1; // block 1, one entry
    auto one = program(loop, p, s);
    CHECK(one.complete());
    CHECK(one.blocks_sent == 1);
    CHECK(sw.blocks.at(1).ports[70 - 64] == ports[70]);

    std::swap(ports[129], ports[130]); // block 2: the same entries, in another order
    REQUIRE(ports[129] != ports[130]);
    auto swapped = program(loop, p, s);
    CHECK(swapped.blocks_sent == 1);
    CHECK(sw.blocks.at(2).ports[129 - 128] == ports[129]);
    CHECK(sw.blocks.at(2).ports[130 - 128] == ports[130]);

    auto unchanged = program(loop, p, s);
    CHECK(unchanged.blocks_sent == 0);
    CHECK(sw.lft_sets == 3 + 2);
}

TEST_CASE("a rejected LFT Set leaves its block dirty and is retried; persistent failure is not up", "[lft]")
{
    OneSwitch s(0);
    FakeSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };

    SECTION("one failure: retried in the next round")
    {
        sw.fail_sets = {1};
        daemon::LftProgrammer p(daemon::LftSettings{18, 3, 16});
        auto r = program(loop, p, s);
        CHECK(r.complete());
        CHECK(r.blocks_sent == 4);
        CHECK(r.blocks_dirty == 0);
    }
    SECTION("block 2 fails every round: dirty, not complete, and sent again next sweep")
    {
        sw.fail_sets = {2, 2, 2};
        daemon::LftProgrammer p(daemon::LftSettings{18, 3, 16});
        auto r = program(loop, p, s);
        CHECK_FALSE(r.complete());
        CHECK(r.blocks_dirty == 1);
        CHECK(r.blocks_sent == 3 + 2);
        CHECK_FALSE(r.failures.empty());
        s.found.switch_info[s.sw] = sw.info;
        auto again = program(loop, p, s);
        CHECK(again.complete());
        CHECK(again.blocks_sent == 1);
    }
}

TEST_CASE("a re-route digests only the blocks whose entries changed since the tables last confirmed", "[lft]")
{
    OneSwitch s(0);
    FakeSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    daemon::LftProgrammer p(daemon::LftSettings{18, 3, 16});
    auto first = program(loop, p, s);
    REQUIRE(first.complete());
    CHECK(first.blocks_digested == 3); // nothing held yet: every block by digest
    s.found.switch_info[s.sw] = sw.info;

    auto same = program(loop, p, s);
    CHECK(same.blocks_digested == 0);
    CHECK(same.blocks_sent == 0);

    auto& ports = s.tables.lfts.at(s.sw).port;
    ports[3] = ports[3] == 1 ? 2 : 1; // block 0
    auto one = program(loop, p, s);
    CHECK(one.blocks_digested == 1);
    CHECK(one.blocks_sent == 1);
    CHECK(sw.blocks.at(0).ports[3] == ports[3]);

    // The last LID's block grows: LID 131 in block 2 is no longer padding.
    ports.push_back(2);
    s.tables.linear_fdb_top = Lid(131);
    auto grown = program(loop, p, s);
    CHECK(grown.blocks_digested == 1);
    CHECK(grown.blocks_sent == 1);
    CHECK(sw.blocks.at(2).ports[131 - 128] == 2);
}

TEST_CASE("unchanged rows are sent again to a switch that lost its tables, and after a failed Set", "[lft]")
{
    OneSwitch s(0);
    FakeSwitch sw;
    test::Loop loop;
    loop.port.responder = [&](const mad::Smp& r) { return sw.handle(r); };
    daemon::LftProgrammer p(daemon::LftSettings{18, 1, 16});
    sw.fail_sets = {1};
    auto first = program(loop, p, s); // one round: block 1 stays dirty
    CHECK(first.blocks_dirty == 1);
    s.found.switch_info[s.sw] = sw.info;

    auto again = program(loop, p, s); // same rows: block 1 is not taken as held
    CHECK(again.complete());
    CHECK(again.blocks_sent == 1);
    CHECK(again.blocks_digested == 1);

    // A reset: LinearFDBTop 0 and nothing held; the rows did not change.
    sw.blocks.clear();
    sw.info.linear_fdb_top = 0;
    s.found.switch_info[s.sw] = sw.info;
    auto reset = program(loop, p, s);
    CHECK(reset.complete());
    CHECK(reset.blocks_sent == 3);
    CHECK(sw.blocks.size() == 3);
}
