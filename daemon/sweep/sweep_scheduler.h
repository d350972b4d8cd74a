// The sweep scheduler: the one reader of the events queue, and the one place
// that decides what the SM does next (DESIGN.md, "The long-running SM").
//
// Why: traps, light sweeps, SIGHUP and retry timers all ask for the fabric
// to be looked at again, often many at once (one cable: two traps; a flapping
// link: dozens). Running one piece of work per event would re-route the same
// change many times and overlap programming of one generation with the next.
// The scheduler folds events into one piece of work and runs one at a time.
//
// Data structures: the pending Work (heavy or not, the switches and ports
// whose state to re-read, how many events it absorbed); the settings
// (debounce, light sweep and retry periods), replaceable on SIGHUP.
//
// Algorithm: start with a heavy sweep. Then forever: wait for an event, or
// for the light sweep / retry deadline. An event opens a debounce window:
// further events are absorbed while they keep arriving within `debounce` of
// each other, but never for longer than `debounce_max` after the first, so a
// storm cannot postpone routing forever. The work is then a heavy sweep
// (start, SIGHUP, a trap that names nothing we know, a re-route whose refresh
// failed) or a re-route of the named switches and ports. Light sweeps run
// only between pieces of work; what they find arrives as events like traps.
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
    bool heavy = false;
    bool resume = false;      // a partial outcome's failed part only (Bringup::resume)
    std::string heavy_reason;
    std::set<Guid> switches;  // node GUIDs: re-read SwitchInfo and every port
    std::set<Guid> ports;     // CA port GUIDs: re-read that port
    std::set<Guid> describe;  // node GUIDs: re-read NodeDescription
    bool shutdown = false;
    bool reload = false;      // a ReloadEvent was absorbed
    unsigned events = 0;
    bool empty() const { return !heavy && !resume && switches.empty() && ports.empty() && describe.empty(); }
};

// Pure: folds `event` into `work` using what `snap` (may be null) knows:
// a trap names a LID, the snapshot says which node owns it.
void absorb(const Event& event, const SubnetSnapshot* snap, Work& work);

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

    SweepScheduler(mad::Transport& transport, Bringup& bringup, EventQueue& events, TrapReceiver* traps,
                   SchedulerSettings settings)
        : transport_(transport), bringup_(bringup), events_(events), traps_(traps), settings_(settings)
    {
    }

    void set_settings(const SchedulerSettings& s) { settings_ = s; }
    // Called after every piece of work with its outcome and the snapshot
    // then current (dumps, SMInfo state, summaries).
    void on_outcome(OutcomeObserver f) { observers_.push_back(std::move(f)); }
    // Called on the loop for every event taken from the queue (status).
    void on_event(std::function<void(const Event&)> f) { event_observer_ = std::move(f); }
    // Called on the loop for a ReloadEvent before the heavy sweep it causes.
    void on_reload(std::function<void()> f) { reload_ = std::move(f); }

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
    std::function<void()> reload_;
    std::function<void(const Event&)> event_observer_;
    SchedulerStats stats_;
    bool busy_ = false;
    bool up_ = false;
    bool standby_ = false;
    bool stopping_ = false;
    bool once_ = false; // run_once(): a failed sweep has no "next attempt" to announce
    unsigned partial_in_row_ = 0; // partial outcomes in a row
};

} // namespace ibsm::daemon
