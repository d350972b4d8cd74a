// The SMP transport: sends requests through a MadPort, keeps at most
// `window` of them outstanding, times them out and retries them, matches
// responses by TID, and hands unsolicited MADs (traps, Gets addressed to the
// SM) to a handler. Everything runs on one Boost.Asio io_context.
//
// Why: discovery and switch programming issue tens of thousands of SMPs; the
// simulator and real switches answer several at once far faster than one at
// a time, but an unbounded burst overruns their queues. One window, one place
// for timeouts, retries and bad-MAD accounting.
//
// Data structures: `queue_` holds requests not yet sent (FIFO, so callers'
// order is kept; retries whose backoff has passed go to its front);
// `inflight_` maps the low 32 bits of the TID (the kernel and umad2sim
// overwrite the high bits with the agent id) to the request, its attempt
// counts and completion handler. Every attempt has the same timeout, so
// deadlines fall in send order: `deadlines_` is a FIFO of (deadline, tid,
// attempt); entries whose request completed or moved on to another attempt
// are skipped when they surface. `delayed_` holds failed attempts waiting
// out their backoff, by due time, outside the window. One timer, armed for
// the earlier of the two heads, instead of one per request keeps timer
// syscalls off the per-SMP path.
//
// Retries (DEVELOPERS.md, "Packet loss"): a lost SMP is sent again under a
// fresh TID after a backoff with jitter, not at once into whatever lost it.
// The backoff is kept per target (DR path or DLID): every failed attempt to
// a target doubles it (backoff_base .. backoff_max), any answer from the
// target resets it, so one congested switch slows only the SMPs going to
// it. The delay is drawn uniformly from [d/2, d], so the retries of a burst
// that was lost together do not arrive together again. Two budgets:
// `retries` for attempts that found no answer within `timeout` (each costs
// a full timeout) and `drop_retries` for drops the port reports at once
// (ibsim answers an SMP it drops at any hop with umad status 110 within
// microseconds; a report arriving later than half the timeout is the
// kernel's own timeout and counts as one). Loss on a multi-hop DR path is
// per hop, so at a few percent per port a quarter of all attempts can be
// lost; the cheap budget is what keeps "gave up" at zero there.
//
// Batching: received MADs are read up to half a window at a time, and the
// requests their handlers issue go out together after the batch. With
// ibsim, umad2sim holds one device lock across every write() to the
// simulator's socket, and its receiver thread takes the same lock for every
// datagram it queues for us; answering each response with one send made the
// two threads collide on nearly every SMP (a futex wait and wake, i.e. two
// context switches). Read-a-batch-then-send cut our voluntary context
// switches 2.5x and a 3456-host bring-up by about a fifth (DEVELOPERS.md).
// With a kernel umad device a burst of sends costs nothing extra.
//
// Sources: a caller with many independent requests (the LFT and P_Key
// blocks of a whole fabric, a phase's PortInfo Sets) registers a
// RequestSource instead of one async_request per SMP. The transport pulls
// its next request whenever the window has room and `queue_` is empty (so
// single requests, which callers wait on one by one, go first), and tells
// each completion by one call to the source: no completion handler,
// coroutine resumption or allocation per SMP. A sourced request is retried,
// backed off and counted exactly like any other. A source that has nothing
// more to send is dropped from `sources_`; it adds itself again when it has.
//
// Performance management (class 0x04 GMPs to each port's PMA on QP1) rides
// the same port at a lower priority: those requests wait in `low_queue_`
// and go out only while no SMP is queued, waiting out a backoff or in
// flight, at most `perf_window` at a time, with their own retry budget
// (`perf_retries`). SMPs never count PMA requests against their window, so
// a sweep or re-route that starts while a counter sweep runs waits for
// nothing but the PMA answers already on the wire.
//
// Readiness: a kernel umad descriptor sits in the io_context's reactor. The
// simulator's umad2sim hands out fake descriptors epoll cannot watch; for
// those the receive loop waits with umad2sim's own poll() and drains for at
// most `sim_poll_slice` per turn, then yields to other handlers (timers,
// signals), so no thread of ours is needed either way.
#pragma once

#include "mad/mkey_source.h"
#include "mad/smp.h"
#include "mad/umad_port.h"

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ibsm::mad {

struct TransportOptions {
    unsigned window = 16;
    std::chrono::milliseconds timeout{100};
    unsigned retries = 3; // resends after attempts that found no answer within `timeout`
    std::chrono::milliseconds sim_poll_slice{1};
    unsigned drop_retries = 40; // resends after drops the port reported at once (no timeout spent)
    std::chrono::microseconds backoff_base{500}; // first delay before a resend to a target
    std::chrono::microseconds backoff_max{20000}; // doubling stops here
    std::uint64_t seed = 0;                      // jitter; 0: from std::random_device
    unsigned perf_window = 4;  // PMA (class 0x04) requests in flight at most
    unsigned perf_retries = 2; // resends of a PMA request after timeouts
};

enum class SmpFailure : std::uint8_t {
    none,
    timeout,     // no answer after every retry
    bad_status,  // answered with a non-zero MAD status
    send_failed, // the port refused the send
    shutdown,    // transport closed while the request was pending
};

const char* to_string(SmpFailure f);

struct SmpResponse {
    SmpFailure failure = SmpFailure::none;
    Smp smp;                 // the response when failure is none or bad_status
    std::uint16_t status = 0;
    unsigned attempts = 0;
    bool ok() const { return failure == SmpFailure::none; }
};

// What a request is: the SMP plus where LID-routed SMPs go.
struct SmpRequest {
    Smp smp;
    Lid dlid; // LID-routed only
};

// A producer of requests the transport pulls from (see "Sources" above).
// Its calls come from within the transport, on the io_context's thread.
class RequestSource {
public:
    // Fills `request` (its TID is assigned by the transport) and `tag`
    // (what the source knows the request by) with the next request to
    // send; false when the source has nothing more to send now.
    virtual bool next(SmpRequest& request, std::uint64_t& tag) = 0;
    // Request `tag` finished: answered (ok or bad status), given up after
    // its retries, refused by the port, or failed `shutdown` by stop().
    virtual void finished(std::uint64_t tag, const SmpResponse& response) = 0;
    // The transport stopped: nothing more is pulled. Requests already
    // pulled have been finished (shutdown) before this call.
    virtual void closed() = 0;

protected:
    ~RequestSource() = default;
};

struct TransportCounters {
    // sent, requests, failed: SMPs only (PMA requests: perf_sent, perf_failed)
    std::uint64_t sent = 0;          // every send including retries
    std::uint64_t requests = 0;      // distinct requests completed
    std::uint64_t responses = 0;     // matched responses
    std::uint64_t timeouts = 0;      // attempts that timed out
    std::uint64_t drops = 0;         // attempts the port reported dropped at once (ibsim's status 110)
    std::uint64_t backoffs = 0;      // resends that waited out a backoff
    std::uint64_t failed = 0;        // requests that gave up
    std::uint64_t unsolicited = 0;   // requests/traps handed to the handler
    std::uint64_t malformed = 0;     // too short, bad version/class
    std::uint64_t unmatched = 0;     // responses with no pending TID (late or foreign)
    std::uint64_t kernel_errors = 0; // umad status != 0 on one of our sends
    std::uint64_t gsi_received = 0;  // class 0x03 MADs handed to the GSI handler
    std::uint64_t gsi_sent = 0;
    std::uint64_t gsi_send_failures = 0; // batched GSI sends the port refused
    std::uint64_t perf_sent = 0;         // PMA requests sent, retries included
    std::uint64_t perf_failed = 0;       // PMA requests that gave up
};

// Answers that went wrong, told as they arrive, for the health policy's
// set_errors and illegal rules (health/unhealthy.h): an SMP request that
// completed with a non-zero MAD status, and a response to one of our SMP
// requests that failed the checks (truncated, another class), which is
// then dropped and the request retried. PMA requests are left out.
struct AnswerObserver {
    std::function<void(const SmpRequest&, const SmpResponse&)> bad_status;
    std::function<void(const SmpRequest&, const std::string& what)> malformed;
};

class Transport {
public:
    using UnsolicitedHandler = std::function<void(const RawReceive&)>;
    // Called once per kind of bad MAD ("malformed: short 12 bytes", ...), so
    // logs stay readable under a flood; counters keep the totals.
    using Diagnostic = std::function<void(const std::string&)>;

    Transport(boost::asio::io_context& io, MadPort& port, TransportOptions options);
    ~Transport();
    Transport(const Transport&) = delete;
    Transport& operator=(const Transport&) = delete;

    void set_unsolicited_handler(UnsolicitedHandler h) { unsolicited_ = std::move(h); }
    void set_diagnostic(Diagnostic d) { diagnostic_ = std::move(d); }
    // MADs of the SA class (0x03), requests, responses and the port's
    // reports on our sends alike, go here unchecked beyond the 24-byte MAD
    // header: the SA agent validates its own class. Without a handler they
    // are counted as malformed, as before.
    void set_gsi_handler(UnsolicitedHandler h) { gsi_ = std::move(h); }
    // Where SMPs (not PMA requests) take their M_Key from at every send,
    // and whom their completions are reported to; none: M_Key 0 as built.
    void set_mkey_source(MkeySource* source) { mkeys_ = source; }
    void set_answer_observer(AnswerObserver o) { answers_ = std::move(o); }
    // Sends one GSI MAD as it is (TID and all): the SA's answers, RMPP
    // segments and Reports. False when the port refused it. Answers made
    // while a batch of received MADs is being read leave together after
    // the batch, like the SMP requests their handlers issue (see Batching
    // above); those count their refusals in gsi_send_failures.
    bool send_gsi(std::span<const std::uint8_t, mad_size> mad, const GsiAddress& to);

    // Starts the receive loop. Call once before the first request.
    void start();
    // Fails every pending request with `shutdown` and stops receiving.
    void stop();

    // Queues `request` (its TID is assigned here) and completes with the
    // response or the failure. Completion token: a callback, use_awaitable,
    // deferred, ...
    template <typename Token>
    auto async_request(SmpRequest request, Token&& token)
    {
        return boost::asio::async_initiate<Token, void(SmpResponse)>(
            [this](auto handler, SmpRequest req) {
                enqueue(std::move(req), boost::asio::any_completion_handler<void(SmpResponse)>(std::move(handler)));
            },
            token, std::move(request));
    }

    // Pulls requests from `source` while the window has room (see
    // "Sources" above) until its next() says it has no more; several
    // sources take turns. Adding a source already added changes nothing.
    // Sourced requests are SMPs (class 0x01 or 0x81). On a stopped
    // transport the source is told closed() at once.
    void add_source(RequestSource& source);
    // Forgets `source`: it is not pulled again, and its requests queued, in
    // flight or waiting out a backoff are dropped without a completion (not
    // counted as requests). For a source that goes away before its
    // requests have finished; a finished source need not be removed.
    void remove_source(RequestSource& source);

    // Sends a response to an unsolicited request (e.g. our SMInfo).
    bool respond(const Smp& response, const RawReceive& request);
    // Sends `request` once with a fresh TID and expects no response (a
    // SubnTrap to the master SM: its TrapRepress is not a response).
    bool send_once(SmpRequest request);

    const TransportCounters& counters() const { return counters_; }
    std::size_t inflight() const { return inflight_.size(); }
    std::size_t queued() const { return queue_.size(); }
    std::size_t perf_queued() const { return low_queue_.size(); }
    std::size_t perf_inflight() const { return low_inflight_; }
    const TransportOptions& options() const { return options_; }
    // A reload of perf.window: takes effect with the next PMA sent.
    void set_perf_window(unsigned w) { options_.perf_window = w ? w : 1; }
    // While held (the scheduler's sweeps and re-routes), no PMA request is
    // sent at all: also not while the work computes routes off the loop
    // with no SMP in flight, when the simulator's or the switches' time for
    // counter queries would be taken from the SMPs about to follow.
    // Requests wait in their queue; releasing sends them.
    void hold_perf(bool held)
    {
        perf_held_ = held;
        if (!held) refill();
    }
    std::size_t delayed() const { return delayed_.size(); }
    // SMPs queued, in flight or waiting out a backoff: the SM's own work,
    // without the counter queries riding beside it.
    // A source with requests left to pull counts as one.
    std::size_t smps_pending() const
    {
        return queue_.size() + sources_.size() + inflight_.size() - low_inflight_ + delayed_smps_;
    }

private:
    using Clock = std::chrono::steady_clock;
    struct Pending {
        SmpRequest request;
        boost::asio::any_completion_handler<void(SmpResponse)> handler;
        RequestSource* source = nullptr; // pulled from a source: told instead of `handler`
        std::uint64_t tag = 0;           // the source's name for it
        unsigned attempts = 0;
        unsigned timeouts = 0;
        unsigned drops = 0;
        Clock::time_point sent_at{};
        bool low = false; // a PMA request (see "Performance management" above)
    };
    struct Deadline {
        std::chrono::steady_clock::time_point at;
        std::uint32_t tid;
        unsigned attempt;
    };

    void enqueue(SmpRequest req, boost::asio::any_completion_handler<void(SmpResponse)> handler);
    void pump_sends(bool from_initiation = false);
    void send_next(std::deque<Pending>& from, bool from_initiation);
    // Sends the next request of the first source that has one; false when
    // none has.
    bool pull_source(bool from_initiation);
    void send(Pending p, bool from_initiation);
    bool smp_idle() const
    {
        return !perf_held_ && queue_.empty() && sources_.empty() && delayed_smps_ == 0 &&
               inflight_.size() == low_inflight_;
    }
    bool transmit(std::uint32_t tid, Pending& p);
    // An attempt failed: no answer by its deadline, or a drop reported by
    // the port (`reported`). Gives up or schedules the resend.
    void on_failure(std::uint32_t tid, unsigned attempt, bool reported);
    void arm_timer();
    void on_timer();
    void expire_deadlines();
    void release_delayed();
    std::chrono::microseconds backoff(std::uint64_t target);
    // Sends unless a batch of responses is being read (drain() sends after it).
    void refill() { if (!reading_batch_) pump_sends(); }
    // `from_initiation`: called (indirectly) from async_request itself, where
    // asio forbids completing inline, so the handler is posted. Elsewhere it
    // is dispatched: the waiting coroutine resumes at once and refills the
    // window in the same turn of the loop.
    void complete(std::uint32_t tid, SmpResponse response, bool from_initiation = false);
    void wait_readable();
    void drain();
    void dispatch(const RawReceive& r);
    void note(const std::string& kind, const std::string& detail);

    boost::asio::io_context& io_;
    MadPort& port_;
    TransportOptions options_;
    std::optional<boost::asio::posix::stream_descriptor> descriptor_;
    std::deque<Pending> queue_;
    std::deque<Pending> low_queue_;
    std::deque<RequestSource*> sources_; // with requests left to pull, in the order added
    std::size_t low_inflight_ = 0;
    std::size_t delayed_smps_ = 0;
    bool perf_held_ = false; // hold_perf
    std::unordered_map<std::uint32_t, Pending> inflight_;
    std::deque<Deadline> deadlines_;
    std::multimap<Clock::time_point, Pending> delayed_;
    // Backoff level of every target with a recent failed attempt (see the
    // header comment); erased when the target answers.
    std::unordered_map<std::uint64_t, unsigned> backoff_level_;
    std::minstd_rand rng_;
    boost::asio::steady_timer timer_;
    bool timer_armed_ = false;
    Clock::time_point timer_at_{};
    std::uint64_t timer_generation_ = 0;
    std::uint32_t next_tid_ = 1;
    bool running_ = false;
    bool waiting_ = false;
    bool reading_batch_ = false;
    UnsolicitedHandler unsolicited_;
    UnsolicitedHandler gsi_;
    std::vector<std::pair<std::array<std::uint8_t, mad_size>, GsiAddress>> gsi_out_; // held during a batch
    Diagnostic diagnostic_;
    MkeySource* mkeys_ = nullptr;
    AnswerObserver answers_;
    TransportCounters counters_;
    std::unordered_map<std::string, bool> noted_;
    // Guards callbacks posted after destruction.
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

} // namespace ibsm::mad
