// The SM's side of master/standby (IBA 14.4.1): finds the other SMs in each
// heavy sweep, decides with sm_state.h whether to configure, stand by or
// hand over, polls the master while standing by, and acts on the SMInfo
// Sets other SMs send (HANDOVER, ACKNOWLEDGE, ...).
//
// Why: a site runs two management nodes so the subnet survives losing one.
// The standby must program nothing while the master lives, notice within
// polling_interval * (polling_retries + 1) that it died, and take over
// without disturbing traffic: its heavy sweep keeps the LIDs the ports
// carry, and the LFT programmer reads what each switch holds and sends only
// blocks that differ (lft_programmer.h), so a takeover onto the same
// routing sends no LFT block at all.
//
// Data structures: our state and identity (priority, port GUID, SM_Key),
// the SMs the last heavy sweep found (PeerSm: SMInfo, DR path, LID), the
// master being polled and the count of polls it missed in a row.
//
// Algorithm:
//  - after_discovery (the Bringup's MastershipGate): SMInfo Get, carrying
//    our SM_Key, to every port of the fabric whose PortInfo CapabilityMask
//    has IsSM (other than ours), all at once; sm_state.h's after_sweep
//    decides. Standing by: nothing is programmed, the poller starts.
//    Handing over: SubnSet(SMInfo, HANDOVER) to the higher SM; answered,
//    we are STANDBY polling it; not answered, we stay master and configure.
//  - run(): every polling_interval while STANDBY, one SMInfo Get to the
//    master over its DR path (the transport's timeout and retries apply to
//    it); after_poll decides. take_over: DISCOVERING, HeavySweepEvent.
//    alive_lower: trap 144 (SM priority changed) LID-routed to the master,
//    which then re-sweeps and hands over.
//  - control (the responder's handler for SubnSet(SMInfo)): on_control
//    decides; HANDOVER makes us MASTER, pushes a heavy sweep and sends
//    ACKNOWLEDGE to the old master.
#pragma once

#include "daemon/core/sweep_outcome.h"
#include "daemon/core/events.h"
#include "daemon/sm/sm_info_responder.h"
#include "daemon/sm/sm_state.h"
#include "mad/transport.h"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::daemon {

struct ElectionSettings {
    SmIdentity self;
    std::chrono::milliseconds polling_interval{10000};
    unsigned polling_retries = 4;
};

struct ElectionCounters {
    std::uint64_t peer_queries = 0;  // SMInfo Gets to other SMs in sweeps
    std::uint64_t polls = 0;
    std::uint64_t polls_missed = 0;
    std::uint64_t takeovers = 0;     // master stopped answering
    std::uint64_t handovers_sent = 0;
    std::uint64_t handovers_received = 0;
    std::uint64_t acknowledges_sent = 0;
    std::uint64_t traps_sent = 0;    // trap 144 to a lower master
};

class SmElection final : public MastershipGate {
public:
    SmElection(mad::Transport& transport, SmInfoResponder& responder, EventQueue& events, ElectionSettings settings);

    // Becomes the responder's control handler.
    void install();

    boost::asio::awaitable<std::optional<std::string>> after_discovery(const DiscoveryResult& found) override;
    std::optional<std::string> standing_by() const override;

    // The subnet is up (Bringup::on_subnet_up): MASTER unless we stand by.
    void on_subnet_up();
    // SIGHUP: priority and polling; the SM_Key needs a restart.
    void set_priority(std::uint8_t priority);
    void set_polling(std::chrono::milliseconds interval, unsigned retries);

    // Polls the master while STANDBY, until stop().
    boost::asio::awaitable<void> run();
    void stop();

    mad::SmState state() const { return state_; }
    // Called on every change of state (the events feed), with the reason.
    using StateObserver = std::function<void(mad::SmState from, mad::SmState to, const std::string& why)>;
    void on_state_change(StateObserver f) { state_observer_ = std::move(f); }
    std::optional<Guid> master() const;
    const ElectionCounters& counters() const { return counters_; }

private:
    void enter(mad::SmState next, const std::string& why);
    bool control(std::uint32_t control, const mad::SmInfo& sender);
    boost::asio::awaitable<std::optional<mad::SmInfo>> query(const DrPath& path, std::uint32_t control,
                                                             mad::Method method);
    boost::asio::awaitable<void> poll_once();
    boost::asio::awaitable<void> acknowledge(Guid to);
    void send_trap144();
    mad::SmInfo own_info() const;

    mad::Transport& transport_;
    SmInfoResponder& responder_;
    EventQueue& events_;
    ElectionSettings settings_;
    mad::SmState state_ = mad::SmState::discovering;
    StateObserver state_observer_;
    std::vector<PeerSm> peers_;
    std::optional<PeerSm> master_;
    Lid own_lid_;
    unsigned misses_ = 0;
    std::chrono::steady_clock::time_point next_poll_{};
    // The master whose polls just went unanswered: not asked again in the
    // takeover sweep (it would only cost the transport's timeout).
    std::optional<Guid> excluded_;
    bool stopped_ = false;
    boost::asio::steady_timer timer_;
    ElectionCounters counters_;
};

} // namespace ibsm::daemon
