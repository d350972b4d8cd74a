// The receiving side of RMPP (IBA 13.6.3.3) for one transfer: takes the DATA
// segments of a multi-packet MAD in order, ACKs each window, and hands out
// the whole message once the last segment is in. Used by the SA agent for
// requests longer than one MAD (a GetMulti with many GIDs) and by the ibsim
// preload (ibsim_rmpp/) for clients whose agent registered an RMPP version,
// as the kernel's MAD layer does for them on hardware.
//
// Pure state, no clock: the owner keeps one timer per transfer and calls
// on_timeout() when the sender went quiet, which makes every rule testable
// packet by packet (and fuzzable: tests/fuzz/fuzz_rmpp.cpp).
//
// Data structures: the first segment's header (what the whole message starts
// with), the data so far, `expected` (next segment in order), `window_last`
// (highest segment the sender may send, NewWindowLast of our last ACK) and
// the PayloadLength the first segment announced.
//
// Algorithm (13.6.3.3, receiver): a segment with a bad RMPP version, type or
// status, or with the First flag where it does not belong, aborts with that
// status (ABORT: UNV, BADT, illegal status, inconsistent First). The
// expected segment is appended; it is ACKed when it fills the window (the
// ACK opens the next `window` segments) or is the last one. A segment
// already received is a resend whose ACK was lost: the last ACK is sent
// again. A segment beyond the expected one (one was lost) or beyond the
// window is dropped; the sender's timeout resends from the last ACK. A last
// segment whose PayloadLength disagrees with the first's total aborts
// (inconsistent Last / PayloadLength); a transfer past `max_segments` is
// refused with STOP (resources exhausted). After completion a resent last
// segment is ACKed again, so a lost final ACK does not make the sender fail.
#pragma once

#include "mad/sa/rmpp_wire.h"
#include "mad/sa/sa_mad.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ibsm::mad::sa {

class RmppReceiver {
public:
    struct Limits {
        std::uint32_t window = 32;         // segments per ACK
        std::uint32_t max_segments = 1024; // beyond: STOP, resources exhausted
    };
    enum class Outcome : std::uint8_t {
        ignored,  // nothing to send (dropped, or mid-window)
        ack,      // `reply` is an ACK
        complete, // the message is whole; `reply` is the final ACK
        aborted,  // `reply` is an ABORT or STOP; the transfer is over
    };
    struct Step {
        Outcome outcome = Outcome::ignored;
        std::optional<Mad> reply;
    };

    // `data_offset`: rmpp_data_offset() of the class.
    explicit RmppReceiver(std::size_t data_offset, Limits limits);
    RmppReceiver(std::size_t data_offset) : RmppReceiver(data_offset, Limits{}) {}

    // One DATA segment of this transfer (the MAD as received, 256 bytes; a
    // shorter one is dropped).
    Step on_segment(std::span<const std::uint8_t> mad);
    // The sender went quiet: the ABORT (total time too long) to send, or
    // nothing when no segment was ever taken or the transfer is over.
    std::optional<Mad> on_timeout();

    bool complete() const { return complete_; }
    bool aborted() const { return abort_status_ != 0; }
    std::uint8_t abort_status() const { return abort_status_; }
    std::uint32_t expected() const { return expected_; }
    std::uint32_t window_last() const { return window_last_; }
    // The reassembled MAD: the first segment's header (data_offset bytes,
    // RMPP fields as the first segment had them) followed by the data, cut
    // to the PayloadLength of the last segment. Valid once complete().
    const std::vector<std::uint8_t>& message() const { return message_; }

private:
    Step abort(std::span<const std::uint8_t> mad, RmppType type, std::uint8_t status);
    Mad ack(std::span<const std::uint8_t> mad) const;

    std::size_t data_offset_;
    Limits limits_;
    std::vector<std::uint8_t> message_;
    std::uint32_t expected_ = 1;
    std::uint32_t window_last_ = 1;
    std::uint32_t first_payload_length_ = 0; // 0: not announced
    bool complete_ = false;
    std::uint8_t abort_status_ = 0;
};

} // namespace ibsm::mad::sa
