// What the kernel's MAD layer does for an agent registered with an RMPP
// version (IBA 13.6), done for one umad port of a process running under
// umad2sim, which has no RMPP: segments the multi-packet MADs the client
// sends, reassembles the ones it receives, ACKs, windows, timeouts and
// aborts, and keeps RMPP control traffic away from the client.
//
// Why: without it a stock client on ibsim (saquery, osmtest, OpenSM's SA)
// sees only the first segment of any multi-packet answer, and OpenSM's SA
// sends only the first segment of its own. The preload (preload.cpp) is the
// thin part that moves packets between this and libibumad; everything here
// is pure (the clock is a parameter) and unit-tested
// (tests/unit/ibsim_rmpp/).
//
// Data structures: the agents with their RMPP version; the transfers being
// sent, by (peer LID, low 32 bits of the TID, class) - umad2sim and the
// kernel overwrite the TID's high half of a request with the agent id - each
// an RmppSender with its ACK deadline; the transfers being received, by
// (peer LID, TID, class), each an RmppReceiver with its inactivity deadline
// (kept a while after completion to ACK a resent last segment again); the
// packets to write and the messages for the client, in order.
//
// Algorithm: send() of an RMPP-active MAD longer than one segment by an
// RMPP agent starts a sender and writes its first window; everything else
// is written as it is (a single segment gets First|Last and its
// PayloadLength, as the kernel does). received(): an ACK, STOP or ABORT
// feeds the matching transfer and never reaches the client; a DATA segment
// feeds (or starts, when it is segment 1) a receiver, whose ACK or ABORT is
// written and whose whole message is handed to the client; anything that is
// not RMPP, or for an agent without RMPP, passes untouched. tick(): a sender
// past its deadline rewinds (go-back-N) or, its retries spent, ABORTs and
// tells a client that waits for an answer (timeout_ms > 0) with status
// ETIMEDOUT, as the kernel does; a receiver past its deadline ABORTs (total
// time too long).
//
// Requests (a method without the response bit) sent with timeout_ms > 0 by
// any agent wait for their response, by (agent, low 32 bits of the TID,
// class), as the kernel keeps them: past timeout_ms a single-packet request
// is written again, up to its retries, and then handed back to the client
// with status ETIMEDOUT (umad2sim does neither, so a client whose request
// went unanswered, as osmtest's with a wrong SM_Key, would wait for ever).
// A response, whole, ends the wait; a response still arriving in segments
// holds it off.
#pragma once

#include "mad/sa/rmpp_receiver.h"
#include "mad/sa/rmpp_sender.h"

#include <infiniband/umad.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace ibsm::ibsim_rmpp {

using Clock = std::chrono::steady_clock;

struct Settings {
    std::uint32_t window = 32;                       // segments we let a sender send per ACK
    std::chrono::milliseconds ack_timeout{200};      // sending: wait for an ACK this long
    unsigned retries = 5;                            // sending: rewinds before ABORT
    std::chrono::milliseconds receive_timeout{4000}; // receiving: quiet sender -> ABORT
    std::uint32_t max_segments = 8192;               // receiving: longer -> STOP
};

// One umad as libibumad passes it: the ib_user_mad header (agent, status,
// address) and the MAD bytes.
struct Packet {
    ib_user_mad_t hdr{};
    std::vector<std::uint8_t> mad;
};

struct Counters {
    std::uint64_t sent_transfers = 0, sent_segments = 0, sent_completed = 0, sent_aborted = 0;
    std::uint64_t received_transfers = 0, received_completed = 0, received_aborted = 0;
    std::uint64_t acks_sent = 0, control_dropped = 0;
    std::uint64_t requests_timed_out = 0, requests_resent = 0;
};

class Endpoint {
public:
    explicit Endpoint(Settings settings = {}) : settings_(settings) {}

    void registered(std::uint32_t agent, std::uint8_t rmpp_version);
    void unregistered(std::uint32_t agent);
    bool rmpp_agent(std::uint32_t agent) const;

    // The client sends `p`: the packets to write now, in order.
    std::vector<Packet> send(Packet p, Clock::time_point now);
    // A packet read from umad2sim: queued for the client, or consumed.
    void received(Packet p, Clock::time_point now);
    // Timers due at `now`.
    void tick(Clock::time_point now);
    std::optional<Clock::time_point> next_deadline() const;

    // Packets to write (ACKs, ABORTs, further windows), in order.
    std::vector<Packet> take_outbox();
    bool has_ready() const { return !ready_.empty(); }
    const Packet& front_ready() const { return ready_.front(); }
    void pop_ready() { ready_.pop_front(); }

    const Counters& counters() const { return counters_; }
    std::size_t sending() const { return senders_.size(); }
    std::size_t receiving() const { return receivers_.size(); }
    std::size_t awaiting_response() const { return waiting_.size(); }

private:
    using Key = std::tuple<std::uint16_t, std::uint64_t, std::uint8_t>; // LID (as on the wire), TID, class
    struct Sending {
        Packet base; // the client's packet: agent, address, timeout
        mad::sa::RmppSender sender;
        Clock::time_point deadline;
    };
    struct Receiving {
        Packet first; // agent, address, status of segment 1
        mad::sa::RmppReceiver receiver;
        Clock::time_point deadline;
    };

    // A request waiting for its response: what to write again (empty when
    // it went out in several segments: the kernel would resend the whole
    // transfer; here the wait is only extended), what to hand back, when.
    using WaitKey = std::tuple<std::uint32_t, std::uint32_t, std::uint8_t>; // agent, low TID, class
    struct Waiting {
        Packet request;              // as the client sent it: handed back with ETIMEDOUT
        std::optional<Packet> again; // the packet to write again
        Clock::time_point deadline;
        unsigned retries_left = 0;
    };

    void await_response(const Packet& request, const std::vector<Packet>& written, Clock::time_point now);
    void answered(const Packet& response, bool whole, Clock::time_point now);
    void tick_waiting(Clock::time_point now);
    void pump(Sending& s, Clock::time_point now);
    void fail_send(const Sending& s);
    void reply(const Packet& to, const mad::sa::Mad& mad);
    void on_control(const Packet& p, const mad::sa::RmppHeader& r, Clock::time_point now);
    void on_data(Packet p, Clock::time_point now);

    Settings settings_;
    std::map<std::uint32_t, std::uint8_t> agents_;
    std::map<Key, Sending> senders_;
    std::map<Key, Receiving> receivers_;
    std::map<WaitKey, Waiting> waiting_;
    std::vector<Packet> outbox_;
    std::deque<Packet> ready_;
    Counters counters_;
};

} // namespace ibsm::ibsim_rmpp
