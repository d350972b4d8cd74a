// The sending side of RMPP (IBA 13.6.3.2) for the SA's multi-packet answers
// and for the ibsim preload (ibsim_rmpp/): segments a payload, hands out the
// segments a receiver's window allows, and moves on with its ACKs; rewinds
// on a timeout and gives up after `retries`.
//
// Why ours: umad2sim has no RMPP, and the kernel's only helps agents that
// register with an RMPP version; the SA registers without one and does the
// transfer itself, so it behaves the same on ibsim and on hardware. Pure
// state, no clock: the SA agent owns the timer and calls on_timeout(), which
// makes the windows and retries testable packet by packet.
//
// Data structures: the header every segment repeats (the class's header up
// to its data: MAD + RMPP + SA fields for the SA, 56 bytes; see
// rmpp_data_offset), the payload, and four counters: last_acked (highest segment the receiver
// confirmed in order), window_last (highest it allows), next (next segment
// to send), highest_sent. Segment n carries payload bytes [(n-1)*d, n*d),
// d = 256 - header length (200 for the SA).
//
// Algorithm: the window starts at one segment (the receiver's first ACK
// names the real one). An ACK of segment s with NewWindowLast w: s below
// last_acked is old and ignored; s beyond what was sent or w < s aborts
// (status S2B / W2S, as the spec asks); otherwise last_acked = s, the window
// grows to w and sending resumes at s+1. The ACK of the last segment ends
// the transfer. A timeout resends from last_acked+1 (go-back-N).
#pragma once

#include "mad/sa/sa_mad.h"
#include "mad/sa/rmpp_wire.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ibsm::mad::sa {

class RmppSender {
public:
    // `header`: the response header (method, TID, attribute, status,
    // AttributeOffset); RMPP fields are filled per segment. `payload`: the
    // records back to back at AttributeOffset spacing (may be empty).
    RmppSender(const SaHeader& header, std::vector<std::uint8_t> payload, unsigned retries = 3);
    // Any RMPP class: `header` is the first rmpp_data_offset(class) bytes of
    // the MAD as the client wrote it (24..255 bytes; its RMPP fields are
    // replaced per segment).
    RmppSender(std::span<const std::uint8_t> header, std::vector<std::uint8_t> payload, unsigned retries = 3);

    std::uint32_t segment_count() const { return count_; }
    // Segment n (1..segment_count) as sent: DATA, Active, First on 1, Last
    // on the last, PayloadLength on first and last (IBA 13.6.2.3).
    Mad segment(std::uint32_t n) const;

    // Segments to send now, in order; each is handed out once until an ACK
    // or a timeout moves the window.
    std::vector<std::uint32_t> take_sendable();

    enum class AckResult : std::uint8_t { progress, done, ignored, abort };
    AckResult on_ack(std::uint32_t segment, std::uint32_t new_window_last);
    // No ACK in time: rewinds to the first unconfirmed segment. False once
    // the retries are spent (send abort_mad() and forget the transfer).
    bool on_timeout();

    // The ABORT (or STOP) telling the receiver the transfer is over.
    Mad abort_mad(std::uint8_t rmpp_status) const;
    std::uint8_t abort_status() const { return abort_status_; }
    bool done() const { return last_acked_ == count_; }
    std::uint32_t last_acked() const { return last_acked_; }
    std::uint32_t window_last() const { return window_last_; }
    unsigned timeouts() const { return timeouts_; }

private:
    std::vector<std::uint8_t> header_; // the bytes every segment starts with
    std::size_t chunk_ = data_size;    // payload bytes per segment
    std::vector<std::uint8_t> payload_;
    std::uint32_t count_ = 1;
    std::uint32_t last_acked_ = 0;
    std::uint32_t window_last_ = 1;
    std::uint32_t next_ = 1;
    std::uint32_t highest_sent_ = 0; // ACKs beyond it are illegal (a rewind lowers next_, not this)
    unsigned retries_;
    unsigned timeouts_ = 0;
    std::uint8_t abort_status_ = 0;
};

} // namespace ibsm::mad::sa
