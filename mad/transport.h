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
// order is kept); `inflight_` maps the low 32 bits of the TID (the kernel and
// umad2sim overwrite the high bits with the agent id) to the request, its
// attempt count and completion handler. Every attempt has the same timeout,
// so deadlines fall in send order: `deadlines_` is a FIFO of (deadline, tid,
// attempt) watched by one timer armed for its head; entries whose request
// completed or moved on to another attempt are skipped when they surface.
// One timer instead of one per request keeps timer syscalls off the
// per-SMP path.
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
// Readiness: a kernel umad descriptor sits in the io_context's reactor. The
// simulator's umad2sim hands out fake descriptors epoll cannot watch; for
// those the receive loop waits with umad2sim's own poll() and drains for at
// most `sim_poll_slice` per turn, then yields to other handlers (timers,
// signals), so no thread of ours is needed either way.
#pragma once

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
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace ibsm::mad {

struct TransportOptions {
    unsigned window = 16;
    std::chrono::milliseconds timeout{100};
    unsigned retries = 3; // attempts = retries + 1
    std::chrono::milliseconds sim_poll_slice{1};
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

struct TransportCounters {
    std::uint64_t sent = 0;          // every send including retries
    std::uint64_t requests = 0;      // distinct requests completed
    std::uint64_t responses = 0;     // matched responses
    std::uint64_t timeouts = 0;      // attempts that timed out
    std::uint64_t failed = 0;        // requests that gave up
    std::uint64_t unsolicited = 0;   // requests/traps handed to the handler
    std::uint64_t malformed = 0;     // too short, bad version/class
    std::uint64_t unmatched = 0;     // responses with no pending TID (late or foreign)
    std::uint64_t kernel_errors = 0; // umad status != 0 on one of our sends
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

    // Sends a response to an unsolicited request (e.g. our SMInfo).
    bool respond(const Smp& response, const RawReceive& request);
    // Sends `request` once with a fresh TID and expects no response (a
    // SubnTrap to the master SM: its TrapRepress is not a response).
    bool send_once(SmpRequest request);

    const TransportCounters& counters() const { return counters_; }
    std::size_t inflight() const { return inflight_.size(); }
    std::size_t queued() const { return queue_.size(); }
    const TransportOptions& options() const { return options_; }

private:
    struct Pending {
        SmpRequest request;
        boost::asio::any_completion_handler<void(SmpResponse)> handler;
        unsigned attempts = 0;
    };
    struct Deadline {
        std::chrono::steady_clock::time_point at;
        std::uint32_t tid;
        unsigned attempt;
    };

    void enqueue(SmpRequest req, boost::asio::any_completion_handler<void(SmpResponse)> handler);
    void pump_sends(bool from_initiation = false);
    bool transmit(std::uint32_t tid, Pending& p);
    void on_timeout(std::uint32_t tid, unsigned attempt);
    void arm_timer();
    void expire_deadlines();
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
    std::unordered_map<std::uint32_t, Pending> inflight_;
    std::deque<Deadline> deadlines_;
    boost::asio::steady_timer timer_;
    bool timer_armed_ = false;
    std::uint32_t next_tid_ = 1;
    bool running_ = false;
    bool waiting_ = false;
    bool reading_batch_ = false;
    UnsolicitedHandler unsolicited_;
    Diagnostic diagnostic_;
    TransportCounters counters_;
    std::unordered_map<std::string, bool> noted_;
    // Guards callbacks posted after destruction.
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

} // namespace ibsm::mad
