// The SM's events: everything that may make it look at the fabric again or
// send Sets to the switches, funnelled into one queue that only the sweep
// scheduler reads (docs/design.md, "The path of an event").
//
// Why one queue of a variant: the scheduler sees every cause in arrival
// order and can fold a burst into one piece of work; producers (the trap
// receiver, the light sweeper, signal handlers, retry timers, the multicast
// service) know nothing of each other or of the scheduler.
//
// Data structures: a deque and a timer used as a wake-up. Everything runs on
// one io_context, so no lock: push() from any handler on the loop, pop() from
// the scheduler's coroutine.
#pragma once

#include "mad/notice.h"
#include "mad/types.h"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ibsm::daemon {

// A trap the SM acts on (mad/notice.h lists them), already answered with
// a TrapRepress.
struct TrapEvent {
    mad::Notice notice;
    Lid issuer; // IssuerLID of the Notice
};

// A light sweep saw SwitchInfo:PortStateChange set on this switch.
struct PortStateChangeEvent {
    Guid switch_guid;
};

// Something only a full rediscovery can sort out.
struct HeavySweepEvent {
    std::string reason;
};

// `ibsm resweep`: a light sweep now rather than at the next light sweep
// period (what it finds arrives as events, like any light sweep's).
struct LightSweepEvent {
    std::string reason;
};

// SIGHUP: the configuration was re-read (or failed to be; the daemon keeps
// the old one) and a heavy sweep is due either way, as OpenSM does.
struct ReloadEvent {};

// The retry timer: the subnet is not up, or something was not confirmed.
struct RetryEvent {};

struct ShutdownEvent {};

// Multicast group membership, or the snapshot the trees are computed over,
// changed: the switches' multicast forwarding tables are to be pushed again.
// Asked once while a request is outstanding, not once per join; the push
// waits until `not_before` so that a burst of joins (IPoIB on every host
// after SUBNET UP) is gathered into one push.
struct McastTablesEvent {
    std::chrono::steady_clock::time_point not_before;
};

// The set of isolated links changed (the health policy or the operator;
// daemon/health/health_monitor.h): the last snapshot's fabric is routed
// again around them, without re-discovery (Bringup::reroute_isolated).
struct IsolationEvent {
    std::string reason;
};

using Event = std::variant<TrapEvent, PortStateChangeEvent, HeavySweepEvent, ReloadEvent, RetryEvent, ShutdownEvent,
                           McastTablesEvent, LightSweepEvent, IsolationEvent>;

class EventQueue {
public:
    using Clock = std::chrono::steady_clock;

    explicit EventQueue(boost::asio::any_io_executor ex) : wake_(std::move(ex)) {}

    // Built in place from the event type: GCC 12 at -O3 takes the move of a
    // temporary Event for a read of another alternative's string
    // (-Wmaybe-uninitialized).
    template <class E>
    void push(E&& e)
    {
        events_.emplace_back(std::forward<E>(e));
        wake_.cancel();
    }

    std::size_t size() const { return events_.size(); }
    boost::asio::any_io_executor executor() { return wake_.get_executor(); }

    // The next event, waiting as long as it takes.
    boost::asio::awaitable<Event> pop()
    {
        for (;;) {
            if (auto e = take()) co_return std::move(*e);
            co_await wait(Clock::time_point::max());
        }
    }

    // The next event, or nullopt once `deadline` has passed without one.
    boost::asio::awaitable<std::optional<Event>> pop_until(Clock::time_point deadline)
    {
        for (;;) {
            if (auto e = take()) co_return e;
            if (Clock::now() >= deadline) co_return std::nullopt;
            co_await wait(deadline);
        }
    }

private:
    std::optional<Event> take()
    {
        if (events_.empty()) return std::nullopt;
        Event e = std::move(events_.front());
        events_.pop_front();
        return e;
    }

    boost::asio::awaitable<void> wait(Clock::time_point deadline)
    {
        wake_.expires_at(deadline);
        boost::system::error_code ec; // cancelled by push(): an event arrived
        co_await wake_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }

    std::deque<Event> events_;
    boost::asio::steady_timer wake_;
};

} // namespace ibsm::daemon
