// The publisher's rules (daemon/publish/publisher.h): which readers a sweep
// outcome reaches, given the snapshot then current. Dumps follow every new
// generation; the SA and multicast only one the switches confirmed (up);
// standing by withdraws the SA; a stale or missing snapshot reaches no one.
// The other readers hear of every outcome in the publisher's order.
#include "daemon/publish/publisher.h"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace ibsm;
using daemon::SaAction;

namespace {

daemon::SubnetSnapshot snapshot(std::uint64_t generation)
{
    daemon::SubnetSnapshot s;
    s.generation = generation;
    return s;
}

daemon::SweepOutcome outcome(std::uint64_t generation, bool up)
{
    daemon::SweepOutcome o;
    o.generation = generation;
    o.up = up;
    return o;
}

// The SA's and multicast's port: sends nothing.
class NullPort final : public mad::MadPort {
public:
    bool send(const mad::Smp&, Lid, std::uint32_t) override { return false; }
    std::optional<mad::RawReceive> try_receive() override { return std::nullopt; }
    int fd() const override { return -1; }
    bool pollable_by_reactor() const override { return false; }
    bool wait_readable(int) override { return false; }
    bool send_response(const mad::Smp&, const mad::RawReceive&) override { return false; }
};

} // namespace

TEST_CASE("publisher: an up generation reaches the dumps, the SA (with InformInfo) and multicast", "[publisher]")
{
    const auto snap = snapshot(7);
    auto o = outcome(7, true);
    auto d = daemon::decide_publish(o, &snap);
    CHECK(d.dumps);
    CHECK(d.sa == SaAction::publish);
    CHECK(d.mcast);

    o.degraded = true; // up on tables that failed verification: still the switches' tables
    d = daemon::decide_publish(o, &snap);
    CHECK(d.dumps);
    CHECK(d.sa == SaAction::publish);
    CHECK(d.mcast);

    o = outcome(7, true);
    o.kind = daemon::SweepKind::reroute;
    d = daemon::decide_publish(o, &snap);
    CHECK(d.dumps);
    CHECK(d.sa == SaAction::publish);
    CHECK(d.mcast);
}

TEST_CASE("publisher: a generation not up is dumped, the SA keeps the last confirmed one", "[publisher]")
{
    const auto snap = snapshot(8);
    auto o = outcome(8, false);
    o.partial = true;
    auto d = daemon::decide_publish(o, &snap);
    CHECK(d.dumps);
    CHECK(d.sa == SaAction::keep);
    CHECK_FALSE(d.mcast);
}

TEST_CASE("publisher: an unchanged re-route is not dumped and moves no tree; the SA takes it again",
          "[publisher]")
{
    const auto snap = snapshot(9);
    auto o = outcome(9, true);
    o.kind = daemon::SweepKind::reroute;
    o.unchanged = true;
    auto d = daemon::decide_publish(o, &snap);
    CHECK_FALSE(d.dumps);
    CHECK(d.sa == SaAction::publish); // the same snapshot: InformInfo finds no difference
    CHECK_FALSE(d.mcast);
}

TEST_CASE("publisher: a stale or missing snapshot reaches no reader", "[publisher]")
{
    const auto older = snapshot(4);
    auto o = outcome(5, true);
    for (const daemon::SubnetSnapshot* snap : {&older, static_cast<const daemon::SubnetSnapshot*>(nullptr)}) {
        auto d = daemon::decide_publish(o, snap);
        CHECK_FALSE(d.dumps);
        CHECK(d.sa == SaAction::keep);
        CHECK_FALSE(d.mcast);
    }
    // A failed sweep publishes no generation (0): the last one stays everywhere.
    auto failed = outcome(0, false);
    auto d = daemon::decide_publish(failed, &older);
    CHECK_FALSE(d.dumps);
    CHECK(d.sa == SaAction::keep);
    CHECK_FALSE(d.mcast);
}

TEST_CASE("publisher: standing by withdraws the SA and moves no tree", "[publisher]")
{
    const auto snap = snapshot(3);
    auto o = outcome(0, false);
    o.standby = true;
    auto d = daemon::decide_publish(o, &snap);
    CHECK_FALSE(d.dumps);
    CHECK(d.sa == SaAction::withdraw);
    CHECK_FALSE(d.mcast);
    CHECK(daemon::decide_publish(o, nullptr).sa == SaAction::withdraw);

    // Even an outcome that names the current generation: another SM is master.
    o = outcome(3, true);
    o.standby = true;
    d = daemon::decide_publish(o, &snap);
    CHECK(d.dumps);
    CHECK(d.sa == SaAction::withdraw);
    CHECK_FALSE(d.mcast);
}

TEST_CASE("publisher: the poller and the health monitor before the SA and the dumps; systemd, status, feed after",
          "[publisher]")
{
    const auto dir = std::filesystem::temp_directory_path() / ("ibsmd-test-publisher-" + std::to_string(::getpid()));
    boost::asio::io_context io;
    NullPort port;
    mad::Transport transport(io, port, mad::TransportOptions{});
    daemon::SaAgent sa(io, transport);
    daemon::InformRegistry inform(sa);
    daemon::EventQueue events(io.get_executor());
    daemon::McastService mcast(events, transport, daemon::McastSettings{});
    config::DumpConfig none{false, false, false, false, false, 0};
    std::vector<std::string> heard;
    {
        daemon::DumpWriter dumps(dir, none);
        // Each reader notes whether the SA answers from this generation yet.
        auto reader = [&](std::string name) {
            return [&, name](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) {
                heard.push_back(name + (sa.snapshot() == snap ? ": published" : ": before") +
                                (o.generation == snap->generation ? "" : " (other generation)"));
            };
        };
        daemon::Publisher publisher(dumps, sa, inform, mcast,
                                    {reader("counters"), reader("health"), reader("notifier"), reader("status"),
                                     reader("feed")});
        const auto snap = std::make_shared<const daemon::SubnetSnapshot>(snapshot(7));
        publisher.on_outcome(outcome(7, true), snap);
        dumps.drain();
    }
    std::filesystem::remove_all(dir);
    CHECK(heard == std::vector<std::string>{"counters: before", "health: before", "notifier: published",
                                            "status: published", "feed: published"});
}
