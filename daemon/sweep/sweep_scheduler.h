// The sweep scheduler: the one reader of the events queue, the one place
// that decides what the SM does next, and the one coroutine from which Sets
// reach the switches (docs/design.md, "The path of an event").
//
// Why: traps, light sweeps, SIGHUP and retry timers all ask for the fabric
// to be looked at again, often many at once (one cable: two traps; a flapping
// link: dozens). Running one piece of work per event would re-route the same
// change many times and overlap programming of one generation with the next.
// The scheduler folds events into one piece of work and runs one at a time.
// The multicast forwarding tables are such work too: pushed from anywhere
// else, they would race a sweep's Sets and be computed over a snapshot the
// sweep is about to replace.
//
// Data structures: the pending Work (heavy or not, the switches and ports
// whose state to re-read, how many events it absorbed, whether the
// multicast tables are to be pushed); the settings (debounce, light sweep
// and retry periods), replaceable on SIGHUP; the multicast push.
//
// Algorithm: start with a heavy sweep. Then forever: wait for an event, or
// for the light sweep / retry deadline. An event opens a debounce window:
// further events are absorbed while they keep arriving within `debounce` of
// each other, but never for longer than `debounce_max` after the first, so a
// storm cannot postpone routing forever. The work is then a heavy sweep
// (start, SIGHUP, a trap that names nothing we know, a re-route whose refresh
// failed) or a re-route of the named switches and ports. Light sweeps run
// only between pieces of work; what they find arrives as events like traps.
// An IsolationEvent (the isolated links changed) is a re-route of the last
// snapshot's fabric without re-discovery (Bringup::reroute_isolated); folded
// with events that name ports, the re-route of those applies the isolated
// links as well (Bringup applies them to every sweep).
// A McastTablesEvent adds a multicast push to the work, run after the work's
// sweep part (the trees are computed over the snapshot the sweep leaves);
// alone, it is gathered until the event's `not_before` (the requester's
// batch: a burst of joins becomes one push) and neither resets the retry
// timer nor counts as a sweep. A sweep's new snapshot makes the multicast
// service ask again by itself. A LightSweepEvent (`ibsm resweep`) runs a
// light sweep at once, after the work's sweep part unless that was heavy.
// An exception from a piece of work (a bug, or the SM's own port not
// answering) is logged and retried after `retry_interval`: nothing but a
// signal ends the loop. While another SM is master (an outcome says
// standby) there are no retries and no light sweeps: the SM election
// (sm_election.h) polls the master and pushes a HeavySweepEvent when this
// SM is to take over.
//
// Partial outcomes (DEVELOPERS.md, "Packet loss"): when a sweep is not up
// only because some Sets stayed unconfirmed, waiting `retry_interval` and
// sweeping everything again wastes both. The next attempt is a resume
// (Bringup::resume: the failed part only) after `quick_retry`, doubling
// with each partial outcome in a row; the third in a row is a heavy sweep
// again (the fabric may have changed under the snapshot), and no delay
// exceeds `retry_interval`. run_once() resumes up to twice too, so
// `ibsmd --once` ends up rather than giving up on a few lost answers.
#pragma once

#include "daemon/sweep/bringup.h"
#include "daemon/core/events.h"
#include "daemon/sweep/light_sweeper.h"
#include "daemon/sweep/trap_receiver.h"
#include "mad/transport.h"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <set>
#include <string>

namespace ibsm::daemon {

struct SchedulerSettings {
    std::chrono::milliseconds debounce{20};
    std::chrono::milliseconds debounce_max{1000};
    std::chrono::seconds light_interval{10}; // 0: no light sweeps
    std::chrono::seconds retry_interval{10};
    std::chrono::milliseconds quick_retry{100}; // first delay after a partial outcome
    std::size_t light_width = 64;            // SwitchInfo Gets in flight
};

// One piece of work, as events fold into it.
struct Work {
    using Clock = std::chrono::steady_clock;
    bool heavy = false;
    bool resume = false;      // a partial outcome's failed part only (Bringup::resume)
    std::string heavy_reason;
    std::set<Guid> switches;  // node GUIDs: re-read SwitchInfo and every port
    std::set<Guid> ports;     // CA port GUIDs: re-read that port
    std::set<Guid> describe;  // node GUIDs: re-read NodeDescription
    bool shutdown = false;
    bool reload = false;      // a ReloadEvent was absorbed
    bool mcast = false;       // a McastTablesEvent was absorbed: push the multicast tables
    bool light = false;       // a LightSweepEvent was absorbed: a light sweep now (unless a heavy one runs)
    bool isolation = false;   // an IsolationEvent: route the last snapshot's fabric around the isolated links
    std::string isolation_reason;
    Clock::time_point mcast_not_before{};
    unsigned events = 0;      // events behind the sweep part (a multicast or light sweep request is none)
    bool sweeps() const
    {
        return heavy || resume || isolation || !switches.empty() || !ports.empty() || !describe.empty();
    }
};

// Pure: folds `event` into `work` using what `snap` (may be null) knows:
// a trap names a LID, the snapshot says which node owns it.
void absorb(const Event& event, const SubnetSnapshot* snap, Work& work);

// Pure: until when the scheduler keeps folding events into `work`, whose
// first event came at `first` and latest at `last`. Sweep work waits out the
// debounce (never longer than debounce_max); a multicast push alone waits
// for its requester's `not_before`.
Work::Clock::time_point gather_until(const Work& work, Work::Clock::time_point first, Work::Clock::time_point last,
                                     const SchedulerSettings& settings);

// Pure: the request a re-route makes for `work` over `snap` (GUIDs no longer
// in the fabric are dropped: a refresh of their neighbours covers them).
RefreshRequest refresh_request(const Work& work, const SubnetSnapshot& snap);

struct SchedulerStats {
    std::uint64_t heavy_sweeps = 0;
    std::uint64_t reroutes = 0;
    std::uint64_t unchanged = 0;   // re-routes that found nothing changed
    std::uint64_t light_sweeps = 0;
    std::uint64_t events = 0;
    std::uint64_t failures = 0;    // pieces of work that threw
    std::uint64_t resumes = 0;     // partial outcomes finished by Bringup::resume
};

class SweepScheduler {
public:
    using OutcomeObserver = std::function<void(const SweepOutcome&, const SnapshotPtr&)>;
    // Computes the multicast trees and sends the MFT blocks that differ.
    // A function the composition root registers rather than an interface in
    // core: the scheduler needs this one call, sweep may not know the SA
    // wing that owns the groups, and a function keeps core free of a type
    // with a single implementer. Only the scheduler's coroutine calls it.
    using McastPush = std::function<boost::asio::awaitable<void>()>;

    SweepScheduler(mad::Transport& transport, Bringup& bringup, EventQueue& events, TrapReceiver* traps,
                   SchedulerSettings settings)
        : transport_(transport), bringup_(bringup), events_(events), traps_(traps), settings_(settings)
    {
    }

    void set_settings(const SchedulerSettings& s) { settings_ = s; }
    // Called after every piece of work with its outcome and the snapshot
    // then current (dumps, SMInfo state, summaries).
    void on_outcome(OutcomeObserver f) { observers_.push_back(std::move(f)); }
    // Called on the loop for every event taken from the queue (status),
    // multicast requests excepted: after SUBNET UP they come by the dozen and
    // would push the sweeps out of the status's ring of recent events.
    void on_event(std::function<void(const Event&)> f) { event_observer_ = std::move(f); }
    // What a McastTablesEvent makes the scheduler run (none: such events are dropped).
    void set_mcast_push(McastPush f) { mcast_push_ = std::move(f); }

    // SIGTERM/SIGINT: the work in progress may fail as the transport
    // stops; that is the end of the run, not a fault to report.
    void stop()
    {
        stopping_ = true;
        events_.push(ShutdownEvent{});
    }

    // The first heavy sweep only (ibsmd --once); a sweep that cannot start
    // at all is tried up to three times, a second apart.
    boost::asio::awaitable<SweepOutcome> run_once();
    // Runs until a ShutdownEvent.
    boost::asio::awaitable<void> run();

    const SchedulerStats& stats() const { return stats_; }
    bool busy() const { return busy_; }

private:
    boost::asio::awaitable<SweepOutcome> perform(Work work);
    boost::asio::awaitable<void> push_mcast();
    boost::asio::awaitable<void> light_sweep_now();
    void observe(const Event& e);
    void report(const SweepOutcome& o, const Work& w);
    // After a not-up outcome: how long to wait and whether to resume.
    std::chrono::milliseconds retry_delay() const;
    bool resume_next() const { return partial_in_row_ > 0 && partial_in_row_ < 3; }

    mad::Transport& transport_;
    Bringup& bringup_;
    EventQueue& events_;
    TrapReceiver* traps_;
    SchedulerSettings settings_;
    std::vector<OutcomeObserver> observers_;
    std::function<void(const Event&)> event_observer_;
    McastPush mcast_push_;
    SchedulerStats stats_;
    bool busy_ = false;
    bool up_ = false;
    bool standby_ = false;
    bool stopping_ = false;
    bool once_ = false; // run_once(): a failed sweep has no "next attempt" to announce
    unsigned partial_in_row_ = 0; // partial outcomes in a row
};

} // namespace ibsm::daemon
