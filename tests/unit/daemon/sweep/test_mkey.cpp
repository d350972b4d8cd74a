// M_Key protection end to end on the fake fabric, which enforces IBA
// 14.2.4: bring-up keys every port in the Sets it sends anyway, a wrong key
// gets no answer and a violation, the lease clears the protect bits, a
// rotation re-keys with every port reachable throughout, a port keyed by
// someone else is recovered after its lease.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/core/mkey_book.h"
#include "daemon/core/smp_ops.h"
#include "daemon/sweep/bringup.h"

#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>

using namespace ibsm;
using test::bringup_settings;
using test::QuietLogs;
using test::TempDir;
using topology::PortRef;

namespace {

mkey::SipKey secret(std::uint8_t seed)
{
    mkey::SipKey k{};
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(seed + i);
    return k;
}

daemon::MkeySettings keyed(std::uint8_t seed, std::uint8_t bits = 1, std::uint16_t lease = 60)
{
    return daemon::MkeySettings{true, mkey::KeyRing::per_port(secret(seed)), bits, lease};
}

// The key a port holds on the fake (a switch: port 0's) and the GUID it is derived from.
std::pair<std::uint64_t, Guid> fake_key(const test::FakeFabric& fake, PortRef p)
{
    const auto& f = fake.fabric();
    const bool sw = f.node(p.node).is_switch();
    const PortRef checker = sw ? PortRef{p.node, PortNum(0)} : p;
    return {fake.port_info(checker).mkey, sw ? f.node(p.node).guid : f.port(p).guid};
}

void check_all_keyed(const test::FakeFabric& fake, const daemon::MkeyBook& book, std::uint8_t bits)
{
    const auto& f = fake.fabric();
    for (std::uint32_t i = 0; i < f.node_count(); ++i) {
        const topology::NodeId id{i};
        const PortRef p{id, PortNum(f.node(id).is_switch() ? 0 : 1)};
        const auto [key, guid] = fake_key(fake, p);
        INFO(f.node(id).description);
        CHECK(key != 0);
        CHECK(key == book.desired(guid));
        const PortRef checker = f.node(id).is_switch() ? PortRef{id, PortNum(0)} : p;
        CHECK(fake.port_info(checker).mkey_protect_bits == bits);
    }
}

} // namespace

TEST_CASE("bring-up with M_Key keys every port and costs no SMP more than without", "[fake][mkey]")
{
    QuietLogs quiet;
    test::Tree t;
    std::uint64_t smps_off = 0, smps_on = 0;
    {
        TempDir dir;
        test::FabricLoop loop(t.f);
        daemon::Bringup b(loop.transport, bringup_settings(dir.path));
        REQUIRE(loop.run([&] { return b.sweep(); }).up);
        smps_off = loop.fabric.counters().total();
        CHECK(loop.fabric.port_info({t.hosts[4], PortNum(1)}).mkey == 0);
    }
    TempDir dir;
    test::FabricLoop loop(t.f);
    daemon::MkeyBook book(keyed(1, 2));
    loop.transport.set_mkey_source(&book);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    b.set_mkeys(&book);
    const auto o = loop.run([&] { return b.sweep(); });
    INFO(o.reason);
    REQUIRE(o.up);
    smps_on = loop.fabric.counters().total();
    CHECK(smps_on == smps_off);
    check_all_keyed(loop.fabric, book, 2);
    CHECK(loop.fabric.counters().mkey_failures == 0);
    // Keys differ per port.
    CHECK(fake_key(loop.fabric, {t.hosts[0], PortNum(1)}).first != fake_key(loop.fabric, {t.hosts[1], PortNum(1)}).first);
    CHECK(fake_key(loop.fabric, {t.leaves[0], PortNum(0)}).first != fake_key(loop.fabric, {t.leaves[1], PortNum(0)}).first);

    // A second sweep at level 2 (Gets checked too) finds everything as set.
    loop.fabric.reset_counters();
    const auto again = loop.run([&] { return b.sweep(); });
    CHECK(again.up);
    CHECK(loop.fabric.counters().mkey_failures == 0);
}

TEST_CASE("fake fabric: a wrong key gets no answer and a violation; the lease clears the protect bits", "[fake][mkey]")
{
    QuietLogs quiet;
    test::TwoSwitches t;
    test::FabricLoop loop(t.f);
    // S1 keyed by someone else at level 2 with a 30 s lease.
    loop.fabric.set_port_mkey({t.s1, PortNum(0)}, 0xabcdef, 2, 30);
    const DrPath to_s1 = DrPath{}.extended(PortNum(1));
    auto get = [&](std::uint64_t key) {
        return loop.run([&]() -> boost::asio::awaitable<mad::SmpResponse> {
            mad::SmpRequest req{mad::make_dr_request(mad::Method::get, to_s1, mad::attr::port_info, 0, 0), Lid{}};
            req.smp.set_mkey(key);
            co_return co_await loop.transport.async_request(std::move(req), boost::asio::use_awaitable);
        });
    };
    CHECK(get(0x1234).failure == mad::SmpFailure::timeout);
    CHECK(loop.fabric.port_info({t.s1, PortNum(0)}).mkey_violations == 1);
    CHECK(loop.fabric.counters().mkey_failures == 1);
    auto right = get(0xabcdef);
    REQUIRE(right.ok());
    CHECK(mad::decode_port_info(right.smp.data())->mkey == 0xabcdef);

    // Level 1: a Get passes but reads M_Key 0.
    loop.fabric.set_port_mkey({t.s1, PortNum(0)}, 0xabcdef, 1, 30);
    auto hidden = get(0x1234);
    REQUIRE(hidden.ok());
    CHECK(mad::decode_port_info(hidden.smp.data())->mkey == 0);

    // A failed Set starts the lease; it runs out on the fake clock and a
    // Get shows the key again.
    auto set = loop.run([&]() -> boost::asio::awaitable<mad::SmpResponse> {
        mad::SmpRequest req{mad::make_dr_request(mad::Method::set, to_s1, mad::attr::port_info, 0, 0, right.smp.data()),
                            Lid{}};
        req.smp.set_mkey(0x1234);
        co_return co_await loop.transport.async_request(std::move(req), boost::asio::use_awaitable);
    });
    CHECK(set.failure == mad::SmpFailure::timeout);
    CHECK(loop.fabric.port_info({t.s1, PortNum(0)}).mkey_violations == 2);
    loop.fabric.advance_clock(std::chrono::seconds(29));
    CHECK(loop.fabric.port_info({t.s1, PortNum(0)}).mkey_protect_bits == 1);
    loop.fabric.advance_clock(std::chrono::seconds(1));
    CHECK(loop.fabric.port_info({t.s1, PortNum(0)}).mkey_protect_bits == 0);
    CHECK(loop.fabric.counters().lease_expiries == 1);
    auto shown = get(0x1234);
    REQUIRE(shown.ok());
    CHECK(mad::decode_port_info(shown.smp.data())->mkey == 0xabcdef);
}

TEST_CASE("rotation re-keys every port with the old key on each Set, every port reachable throughout", "[fake][mkey]")
{
    QuietLogs quiet;
    TempDir dir;
    test::Tree t;
    test::FabricLoop loop(t.f);
    daemon::MkeyBook book(keyed(1, 2));
    loop.transport.set_mkey_source(&book);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    b.set_mkeys(&book);
    REQUIRE(loop.run([&] { return b.sweep(); }).up);

    book.set_settings(keyed(77, 2));
    CHECK(book.rotating());
    loop.fabric.reset_counters();
    const auto o = loop.run([&] { return b.sweep(); });
    INFO(o.reason);
    CHECK(o.up);
    // Nothing was refused: every SMP carried the key its port held at the time.
    CHECK(loop.fabric.counters().mkey_failures == 0);
    CHECK(loop.fabric.counters().dropped_route == 0);
    check_all_keyed(loop.fabric, book, 2);
    CHECK_FALSE(book.rotating());
    const auto rb = loop.fabric.read_back();
    const auto report = test::analyze_read_back(rb);
    const auto& ca = report.of(routing::analysis::PairClass::ca_to_ca);
    CHECK(ca.pairs == 9 * 8);
    CHECK(ca.unreachable == 0);
}

TEST_CASE("a port keyed by another SM is recovered after its lease", "[fake][mkey]")
{
    QuietLogs quiet;
    TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop(t.f);
    loop.fabric.set_port_mkey({t.h3, PortNum(1)}, 0x5eed, 1, 60);
    daemon::MkeyBook book(keyed(3, 1, 60));
    std::vector<daemon::MkeyIncident> incidents;
    book.set_incident_handler([&](const daemon::MkeyIncident& i) { incidents.push_back(i); });
    loop.transport.set_mkey_source(&book);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path));
    b.set_mkeys(&book);
    const auto first = loop.run([&] { return b.sweep(); });
    CHECK_FALSE(first.up);
    const Guid h3 = loop.fabric.fabric().port({t.h3, PortNum(1)}).guid;
    REQUIRE_FALSE(incidents.empty());
    for (const auto& i : incidents) {
        CHECK(i.port == h3);
        CHECK(i.what.ends_with(" Set"));
    }
    CHECK(loop.fabric.port_info({t.h3, PortNum(1)}).mkey == 0x5eed);
    CHECK(loop.fabric.port_info({t.h3, PortNum(1)}).mkey_violations > 0);

    loop.fabric.advance_clock(std::chrono::seconds(60));
    const auto o = loop.run([&] { return b.sweep(); });
    INFO(o.reason);
    CHECK(o.up);
    CHECK(loop.fabric.port_info({t.h3, PortNum(1)}).mkey == book.desired(h3));
    CHECK(book.held(h3) == book.desired(h3));
    CHECK(loop.fabric.port_info({t.h3, PortNum(1)}).mkey_protect_bits == 1);
}
