// M_Key protection end to end on the fake fabric, which enforces IBA
// 14.2.4: bring-up keys every port in the Sets it sends anyway, a wrong key
// gets no answer and a violation, the lease clears the protect bits, a
// rotation re-keys with every port reachable throughout, a port keyed by
// someone else is waited out by MkeyRecovery and re-keyed by the heavy
// sweep it asks for once the lease has run out; the rotation through the
// scheduler, one interrupted by lost answers, one a departed port does not
// hold open; Bad M_Key traps reach the trap receiver's observer.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/core/mkey_book.h"
#include "daemon/core/smp_ops.h"
#include "daemon/core/events.h"
#include "daemon/sweep/bringup.h"
#include "daemon/sweep/mkey_recovery.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "daemon/sweep/trap_receiver.h"

#include <boost/asio/steady_timer.hpp>

#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>

#include <functional>
#include <optional>

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

// The book wired as daemon/main.cpp wires it: the transport asks it for
// every SMP's key, the bring-up keys the ports from it.
struct KeyedBringup {
    daemon::MkeyBook book;
    daemon::Bringup bringup;
    KeyedBringup(test::FabricLoop& loop, const std::filesystem::path& dir, daemon::MkeySettings settings)
        : book(std::move(settings)), bringup(loop.transport, bringup_settings(dir))
    {
        loop.transport.set_mkey_source(&book);
        bringup.set_mkeys(&book);
    }
};

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

// The service's path: the scheduler runs the bring-up from its queue. After
// the first outcome that is up, `rotate` changes the book's settings and
// asks for the heavy sweep `ibsm mkey rotate` asks for; the run ends at the
// first outcome up after the book settled (or at 10 s of fake time).
struct ScheduledRotation {
    std::vector<daemon::SweepOutcome> outcomes;
    std::vector<bool> rotating; // the book's, after each outcome
    std::size_t rotated_at = 0; // outcomes before the rotation
};

ScheduledRotation run_rotation(test::FabricLoop& loop, daemon::Bringup& b, daemon::MkeyBook& book,
                               const std::function<void()>& rotate)
{
    daemon::EventQueue events(loop.io.get_executor());
    daemon::SchedulerSettings ss;
    ss.light_interval = std::chrono::seconds(0);
    ss.quick_retry = std::chrono::milliseconds(5);
    daemon::SweepScheduler scheduler(loop.transport, b, events, nullptr, ss);
    ScheduledRotation r;
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr&) {
        r.outcomes.push_back(o);
        r.rotating.push_back(book.rotating());
        if (!o.up) return;
        if (r.rotated_at == 0) {
            r.rotated_at = r.outcomes.size();
            rotate();
            events.push(daemon::HeavySweepEvent{"M_Key rotation (ibsm mkey rotate)"});
        } else if (!book.rotating()) {
            events.push(daemon::ShutdownEvent{});
        }
    });
    boost::asio::steady_timer guard(loop.io, std::chrono::seconds(10));
    guard.async_wait([&](auto ec) {
        if (!ec) events.push(daemon::ShutdownEvent{});
    });
    loop.run([&]() -> boost::asio::awaitable<int> {
        co_await scheduler.run();
        guard.cancel();
        co_return 0;
    });
    return r;
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
    KeyedBringup keyed_sm(loop, dir.path, keyed(1, 2));
    auto& book = keyed_sm.book;
    auto& b = keyed_sm.bringup;
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
    KeyedBringup keyed_sm(loop, dir.path, keyed(1, 2));
    auto& book = keyed_sm.book;
    auto& b = keyed_sm.bringup;
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
    // Another SM keyed H3 at level 1 with a 2 s lease: Gets pass (showing
    // M_Key 0), a Set under any other key is refused and starts the lease.
    constexpr std::uint16_t lease = 2;
    const PortRef h3_port{t.h3, PortNum(1)};
    loop.fabric.set_port_mkey(h3_port, 0x5eed, 1, lease);
    KeyedBringup keyed_sm(loop, dir.path, keyed(3, 1, lease));
    auto& book = keyed_sm.book;
    const Guid h3 = loop.fabric.fabric().port(h3_port).guid;

    // Wired as daemon/main.cpp wires it: the book's incidents go to the
    // recovery, whose heavy sweep request reaches the scheduler's queue.
    daemon::EventQueue events(loop.io.get_executor());
    daemon::MkeyRecovery recovery(events, book);
    using Clock = std::chrono::steady_clock;
    std::optional<Clock::time_point> first_incident;
    std::vector<daemon::MkeyIncident> incidents;
    // The port's lease runs on real time, as on hardware: from the first
    // violation on, the fake's clock follows the loop's, a second a tick.
    boost::asio::steady_timer lease_clock(loop.io);
    std::function<void()> tick = [&] {
        lease_clock.expires_after(std::chrono::seconds(1));
        lease_clock.async_wait([&](boost::system::error_code ec) {
            if (ec) return;
            loop.fabric.advance_clock(std::chrono::seconds(1));
            tick();
        });
    };
    book.set_incident_handler([&](const daemon::MkeyIncident& i) {
        incidents.push_back(i);
        recovery.on_incident(i);
        if (!first_incident) {
            first_incident = Clock::now();
            tick();
        }
    });

    // The scheduler's own retries come long after the lease: only the
    // recovery can make the SM sweep again within the test.
    daemon::SchedulerSettings ss;
    ss.light_interval = std::chrono::seconds(0);
    ss.retry_interval = std::chrono::seconds(60);
    ss.quick_retry = std::chrono::milliseconds(30000);
    daemon::SweepScheduler scheduler(loop.transport, keyed_sm.bringup, events, nullptr, ss);
    std::vector<daemon::SweepOutcome> outcomes;
    std::vector<Clock::time_point> outcome_at;
    bool waiting_after_first = false;
    std::uint64_t key_after_first = 0;
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr&) {
        outcomes.push_back(o);
        outcome_at.push_back(Clock::now());
        if (outcomes.size() == 1) {
            waiting_after_first = recovery.waiting_for(h3);
            key_after_first = loop.fabric.port_info(h3_port).mkey;
        }
        if (o.up) events.push(daemon::ShutdownEvent{});
    });
    boost::asio::steady_timer guard(loop.io, std::chrono::seconds(10));
    guard.async_wait([&](auto ec) {
        if (!ec) events.push(daemon::ShutdownEvent{});
    });
    loop.run([&]() -> boost::asio::awaitable<int> {
        co_await scheduler.run();
        guard.cancel();
        lease_clock.cancel();
        co_return 0;
    });

    // The first sweep could not program H3: its Sets were refused, the key
    // stayed the other SM's, and the recovery waits for the lease.
    REQUIRE_FALSE(outcomes.empty());
    CHECK_FALSE(outcomes[0].up);
    REQUIRE_FALSE(incidents.empty());
    for (const auto& i : incidents) {
        CHECK(i.port == h3);
        CHECK(i.what.ends_with(" Set"));
    }
    CHECK(recovery.incidents() == incidents.size());
    CHECK(waiting_after_first);
    CHECK(key_after_first == 0x5eed);
    CHECK(loop.fabric.port_info(h3_port).mkey_violations > 0);
    CHECK(loop.fabric.counters().lease_expiries == 1);

    // The recovery's heavy sweep, once the lease ran out, re-keyed H3 with
    // the key it showed then: up, and nothing else swept in between.
    REQUIRE(outcomes.size() == 2);
    INFO(outcomes[1].reason);
    CHECK(outcomes[1].up);
    CHECK(outcomes[1].kind == daemon::SweepKind::heavy);
    REQUIRE(first_incident);
    CHECK(outcome_at[1] - *first_incident >= std::chrono::seconds(lease + 1));
    CHECK(recovery.waiting() == 0);
    CHECK(loop.fabric.port_info(h3_port).mkey == book.desired(h3));
    CHECK(book.held(h3) == book.desired(h3));
    CHECK(loop.fabric.port_info(h3_port).mkey_protect_bits == 1);
}

TEST_CASE("rotation through the scheduler: no SMP refused, every port re-keyed, the rotation completes",
          "[fake][mkey]")
{
    QuietLogs quiet;
    TempDir dir;
    test::Tree t;
    test::FabricLoop loop(t.f);
    KeyedBringup keyed_sm(loop, dir.path, keyed(1, 2));
    auto& book = keyed_sm.book;
    auto& b = keyed_sm.bringup;
    std::uint64_t before = 0;
    const auto r = run_rotation(loop, b, book, [&] {
        before = fake_key(loop.fabric, {t.hosts[4], PortNum(1)}).first;
        loop.fabric.reset_counters();
        book.set_settings(keyed(9, 2));
    });
    REQUIRE(r.rotated_at == 1);
    REQUIRE(r.outcomes.size() == 2);
    INFO(r.outcomes[1].reason);
    CHECK(r.outcomes[1].up);
    // Level 2: a Get under a wrong key is refused too, so none refused at
    // all means every SMP of the rotation carried the key its port held.
    CHECK(loop.fabric.counters().mkey_failures == 0);
    CHECK(loop.fabric.counters().dropped_route == 0);
    CHECK(fake_key(loop.fabric, {t.hosts[4], PortNum(1)}).first != before);
    check_all_keyed(loop.fabric, book, 2);
    CHECK_FALSE(book.rotating());
    CHECK(book.counters().rotations_started == 1);
    CHECK(book.counters().rotations_completed == 1);
    CHECK(book.counters().unanswered == 0);
    const auto report = test::analyze_read_back(loop.fabric.read_back());
    CHECK(report.of(routing::analysis::PairClass::ca_to_ca).unreachable == 0);
}

TEST_CASE("a rotation interrupted by a lost Set finishes on the next sweep", "[fake][mkey]")
{
    QuietLogs quiet;
    TempDir dir;
    test::Tree t;
    // Retries cycle through the keys the book knows (held, new, old).
    test::FabricLoop loop(t.f, {}, test::fast_transport(2));
    KeyedBringup keyed_sm(loop, dir.path, keyed(1, 2));
    auto& book = keyed_sm.book;
    auto& b = keyed_sm.bringup;
    const Guid h4 = loop.fabric.fabric().port({t.hosts[4], PortNum(1)}).guid;
    std::uint64_t old_key = 0;
    const auto r = run_rotation(loop, b, book, [&] {
        old_key = book.desired(h4);
        book.set_settings(keyed(9, 2));
        // Every send of H4's PortInfo Set in the rotation's sweep is lost on
        // the way (3 rounds of 3 attempts); the Gets reading it pass.
        loop.fabric.drop_sets_next(t.f.node(t.hosts[4]).guid, 9, mad::attr::port_info);
    });
    REQUIRE(r.rotated_at == 1);
    REQUIRE(r.outcomes.size() >= 3);
    // The rotation's sweep could not confirm H4: not up, the rotation open.
    CHECK_FALSE(r.outcomes[1].up);
    CHECK(r.rotating[1]);
    INFO(r.outcomes[1].reason);
    const auto& last = r.outcomes.back();
    INFO(last.reason);
    CHECK(last.up);
    CHECK_FALSE(book.rotating());
    CHECK(book.counters().rotations_completed == 1);
    CHECK(old_key != book.desired(h4));
    CHECK(book.held(h4) == book.desired(h4));
    check_all_keyed(loop.fabric, book, 2);
    const auto report = test::analyze_read_back(loop.fabric.read_back());
    CHECK(report.of(routing::analysis::PairClass::ca_to_ca).unreachable == 0);
}

TEST_CASE("a port that left the fabric does not hold a rotation open", "[fake][mkey]")
{
    QuietLogs quiet;
    TempDir dir;
    test::Tree t;
    test::FabricLoop loop(t.f);
    KeyedBringup keyed_sm(loop, dir.path, keyed(1, 1));
    auto& book = keyed_sm.book;
    auto& b = keyed_sm.bringup;
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    const Guid h7 = loop.fabric.fabric().port({t.hosts[7], PortNum(1)}).guid;
    const auto old_key = book.desired(h7);
    INFO(h7.str());
    CHECK(book.held(h7) == old_key);
    REQUIRE(book.view(h7).present);

    loop.fabric.unlink({t.hosts[7], PortNum(1)});
    book.set_settings(keyed(5, 1));
    const auto o = loop.run([&] { return b.sweep(); });
    INFO(o.reason);
    CHECK(o.up);
    CHECK_FALSE(book.rotating());
    CHECK(book.counters().rotations_completed == 1);
    // The book still knows the key H7 holds, should it come back.
    CHECK(book.held(h7) == old_key);
    CHECK_FALSE(book.view(h7).present);

    // Back mid-nothing: its old key is the held one, its Set carries it.
    loop.fabric.relink({t.hosts[7], PortNum(1)});
    const auto back = loop.run([&] { return b.sweep(); });
    INFO(back.reason);
    CHECK(back.up);
    CHECK(loop.fabric.port_info({t.hosts[7], PortNum(1)}).mkey == book.desired(h7));
    CHECK(loop.fabric.counters().mkey_failures == 0);
}

TEST_CASE("a Bad M_Key trap reaches the trap receiver's observer with the offending source", "[fake][mkey]")
{
    QuietLogs quiet;
    TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop(t.f);
    KeyedBringup keyed_sm(loop, dir.path, keyed(2, 1));
    auto& b = keyed_sm.bringup;
    REQUIRE(loop.run([&] { return b.sweep(); }).up);

    daemon::EventQueue events(loop.io.get_executor());
    daemon::TrapReceiver traps(loop.transport, events);
    std::vector<daemon::MkeyViolation> seen;
    traps.on_mkey_violation([&](const daemon::MkeyViolation& v) { seen.push_back(v); });
    loop.transport.set_unsolicited_handler([&](const mad::RawReceive& r) { traps.on_trap(r); });
    // Someone's Set to S1 over DR with a wrong key (the book is bypassed).
    loop.transport.set_mkey_source(nullptr);
    const DrPath to_s1 = DrPath{}.extended(PortNum(1));
    std::array<std::uint8_t, 64> pi{};
    mad::encode(loop.fabric.port_info({t.s1, PortNum(0)}), pi);
    const auto set = loop.run([&]() -> boost::asio::awaitable<mad::SmpResponse> {
        mad::SmpRequest req{mad::make_dr_request(mad::Method::set, to_s1, mad::attr::port_info, 0, 0, pi), Lid{}};
        req.smp.set_mkey(0x1234);
        co_return co_await loop.transport.async_request(std::move(req), boost::asio::use_awaitable);
    });
    CHECK(set.failure == mad::SmpFailure::timeout);
    loop.run([&]() -> boost::asio::awaitable<int> {
        boost::asio::steady_timer wait(loop.io, std::chrono::milliseconds(20));
        co_await wait.async_wait(boost::asio::use_awaitable);
        co_return 0;
    });
    REQUIRE(seen.size() == 1);
    CHECK(traps.mkey_violations() == 1);
    CHECK(seen[0].details.attr_id == mad::attr::port_info);
    CHECK(seen[0].details.method == static_cast<std::uint8_t>(mad::Method::set));
    CHECK(seen[0].details.directed_route);
    CHECK(seen[0].source.starts_with("a directed-route SMP (DrSLID "));
    CHECK(seen[0].source.find("1 hop(s), return path") != std::string::npos);
    // Trap 256 is never a sweep's cause.
    CHECK(events.size() == 0);
}

TEST_CASE("the recovery takes the book's incidents and tells its observer the port is waited out", "[fake][mkey]")
{
    QuietLogs quiet;
    TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop(t.f);
    loop.fabric.set_port_mkey({t.h3, PortNum(1)}, 0x5eed, 1, 60);
    KeyedBringup keyed_sm(loop, dir.path, keyed(3, 1, 1)); // waits out a lease of 1 s (+1)
    daemon::EventQueue events(loop.io.get_executor());
    daemon::MkeyRecovery recovery(events, keyed_sm.book);
    std::vector<std::pair<Guid, bool>> seen;
    recovery.handle_incidents(keyed_sm.book,
                              [&](const daemon::MkeyIncident& i, bool waited) { seen.emplace_back(i.port, waited); });
    CHECK_FALSE(loop.run([&] { return keyed_sm.bringup.sweep(); }).up);
    const Guid h3 = loop.fabric.fabric().port({t.h3, PortNum(1)}).guid;
    REQUIRE_FALSE(seen.empty());
    CHECK(recovery.incidents() == seen.size());
    for (const auto& [port, waited] : seen) {
        CHECK(port == h3);
        CHECK(waited); // the recovery armed its lease timer before the observer heard
    }
    // The run lasted until the lease timer fired: the heavy sweep that re-keys the port is asked for.
    CHECK(recovery.waiting() == 0);
    REQUIRE(events.size() == 1);
    const auto e = loop.run([&] { return events.pop(); });
    REQUIRE(std::holds_alternative<daemon::HeavySweepEvent>(e));
    CHECK(std::get<daemon::HeavySweepEvent>(e).reason == "re-key " + h3.str() + " after its M_Key lease");
}

TEST_CASE("turning M_Key off clears the keys the SM set, and then leaves the fields alone", "[fake][mkey]")
{
    QuietLogs quiet;
    TempDir dir;
    test::Tree t;
    test::FabricLoop loop(t.f);
    KeyedBringup keyed_sm(loop, dir.path, keyed(3, 1));
    auto& book = keyed_sm.book;
    auto& b = keyed_sm.bringup;
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    check_all_keyed(loop.fabric, book, 1);

    book.set_settings(daemon::MkeySettings{});
    const auto o = loop.run([&] { return b.sweep(); });
    INFO(o.reason);
    CHECK(o.up);
    CHECK(loop.fabric.counters().mkey_failures == 0);
    const auto& f = loop.fabric.fabric();
    for (std::uint32_t i = 0; i < f.node_count(); ++i) {
        const topology::NodeId id{i};
        const PortRef checker{id, PortNum(f.node(id).is_switch() ? 0 : 1)};
        INFO(f.node(id).description);
        CHECK(loop.fabric.port_info(checker).mkey == 0);
        CHECK(loop.fabric.port_info(checker).mkey_protect_bits == 0);
    }

    // Nothing left to clear: the next sweep sends no PortInfo Set.
    loop.fabric.reset_counters();
    const auto again = loop.run([&] { return b.sweep(); });
    CHECK(again.up);
    CHECK(loop.fabric.counters().count(mad::Method::set, mad::attr::port_info) == 0);
}

TEST_CASE("M_Key off: ports holding another SM's key (shown at level 0) get it on every Set, LFT blocks included, "
          "until the SM clears it",
          "[fake][mkey]")
{
    QuietLogs quiet;
    TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop(t.f);
    loop.fabric.set_port_mkey({t.h3, PortNum(1)}, 0x5eed, 0, 60);
    loop.fabric.set_port_mkey({t.s2, PortNum(0)}, 0x77, 0, 60);
    KeyedBringup sm(loop, dir.path, daemon::MkeySettings{});
    const auto o = loop.run([&] { return sm.bringup.sweep(); });
    INFO(o.reason);
    CHECK(o.up);
    // Every Set to the keyed switch (its LFT block among them) and CA passed the check.
    CHECK(loop.fabric.counters().mkey_failures == 0);
    CHECK(loop.fabric.port_info({t.s2, PortNum(0)}).mkey_violations == 0);
    CHECK(loop.fabric.port_info({t.h3, PortNum(1)}).mkey_violations == 0);
    // ... and M_Key off means no key: the PortInfo Sets cleared both.
    CHECK(sm.book.held(loop.fabric.fabric().node(t.s2).guid) == std::optional<std::uint64_t>{0});
    CHECK(sm.book.held(loop.fabric.fabric().port({t.h3, PortNum(1)}).guid) == std::optional<std::uint64_t>{0});
    CHECK(loop.fabric.port_info({t.s2, PortNum(0)}).mkey == 0);
    CHECK(loop.fabric.port_info({t.h3, PortNum(1)}).mkey == 0);
    CHECK(loop.fabric.lft_entry(t.s2, loop.fabric.port_info({t.h2, PortNum(1)}).lid) == 1);
}
