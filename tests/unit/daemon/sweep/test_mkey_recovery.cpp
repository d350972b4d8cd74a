// MkeyRecovery alone, on a loop: one wait per port for the configured lease
// and a second, then one heavy sweep asked for per port; incidents
// meanwhile only counted; a lease of 0 never waited for. The recovery of a
// real keyed port through the scheduler is in test_mkey.cpp.
#include "../support/fake_fabric_support.h"

#include "daemon/sweep/mkey_recovery.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <variant>
#include <vector>

using namespace ibsm;

namespace {

daemon::MkeySettings with_lease(std::uint16_t lease)
{
    return daemon::MkeySettings{true, mkey::KeyRing::fixed(0x1234), 1, lease};
}

daemon::MkeyIncident incident(std::uint64_t port)
{
    return daemon::MkeyIncident{Guid(port), false, "DR path 0,1,2", "PortInfo Set"};
}

// The events the queue holds, taken out.
std::vector<daemon::Event> drain(boost::asio::io_context& io, daemon::EventQueue& events)
{
    std::vector<daemon::Event> out;
    const std::size_t n = events.size();
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            for (std::size_t i = 0; i < n; ++i) out.push_back(co_await events.pop());
        },
        boost::asio::detached);
    io.poll();
    io.restart();
    return out;
}

} // namespace

TEST_CASE("one wait per port for the lease and a second, then one heavy sweep per port", "[mkey]")
{
    test::QuietLogs quiet;
    boost::asio::io_context io;
    daemon::EventQueue events(io.get_executor());
    const daemon::MkeyBook book(with_lease(1));
    daemon::MkeyRecovery recovery(events, book);
    const auto start = std::chrono::steady_clock::now();
    recovery.on_incident(incident(0x301));
    recovery.on_incident(incident(0x301)); // the same port again: counted only
    recovery.on_incident(incident(0x501));
    CHECK(recovery.incidents() == 3);
    CHECK(recovery.waiting() == 2);
    CHECK(recovery.waiting_for(Guid(0x301)));
    CHECK_FALSE(recovery.waiting_for(Guid(0x401)));

    // Not before the lease has run out.
    io.run_for(std::chrono::milliseconds(900));
    CHECK(events.size() == 0);
    CHECK(recovery.waiting() == 2);

    const auto deadline = start + std::chrono::seconds(5);
    while (events.size() < 2 && std::chrono::steady_clock::now() < deadline) io.run_for(std::chrono::milliseconds(10));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    CHECK(elapsed >= std::chrono::seconds(2));
    io.restart();
    const auto got = drain(io, events);
    REQUIRE(got.size() == 2);
    std::vector<std::string> reasons;
    for (const auto& e : got) {
        REQUIRE(std::holds_alternative<daemon::HeavySweepEvent>(e));
        reasons.push_back(std::get<daemon::HeavySweepEvent>(e).reason);
    }
    std::sort(reasons.begin(), reasons.end());
    CHECK(reasons == std::vector<std::string>{"re-key 0x0000000000000301 after its M_Key lease",
                                              "re-key 0x0000000000000501 after its M_Key lease"});
    CHECK(recovery.waiting() == 0);

    // A port that refuses again after its sweep is waited for again.
    recovery.on_incident(incident(0x301));
    CHECK(recovery.waiting() == 1);
    CHECK(recovery.incidents() == 4);
}

TEST_CASE("a lease of 0 never runs out: nothing is waited for, nothing swept", "[mkey]")
{
    test::QuietLogs quiet;
    boost::asio::io_context io;
    daemon::EventQueue events(io.get_executor());
    const daemon::MkeyBook book(with_lease(0));
    daemon::MkeyRecovery recovery(events, book);
    recovery.on_incident(incident(0x301));
    CHECK(recovery.incidents() == 1);
    CHECK(recovery.waiting() == 0);
    CHECK_FALSE(recovery.waiting_for(Guid(0x301)));
    io.run_for(std::chrono::milliseconds(50));
    CHECK(events.size() == 0);
}
