#include "mad/sa/rmpp_receiver.h"

#include <algorithm>

namespace ibsm::mad::sa {

RmppReceiver::RmppReceiver(std::size_t data_offset, Limits limits)
    : data_offset_(std::clamp<std::size_t>(data_offset, 36, mad_size - 1)), limits_(limits)
{
    limits_.window = std::max<std::uint32_t>(1, limits_.window);
    limits_.max_segments = std::max<std::uint32_t>(1, limits_.max_segments);
}

Mad RmppReceiver::ack(std::span<const std::uint8_t> mad) const
{
    return rmpp_reply(mad, data_offset_, RmppType::ack, rmpp_status::ok, expected_ - 1, window_last_);
}

RmppReceiver::Step RmppReceiver::abort(std::span<const std::uint8_t> mad, RmppType type, std::uint8_t status)
{
    abort_status_ = status;
    message_.clear();
    return Step{Outcome::aborted, rmpp_reply(mad, data_offset_, type, status, 0, 0)};
}

RmppReceiver::Step RmppReceiver::on_segment(std::span<const std::uint8_t> mad)
{
    if (mad.size() < mad_size || aborted()) return {};
    const RmppHeader h = read_rmpp(mad);
    if (complete_) {
        // The sender missed our last ACK and resent: confirm again.
        if (h.type == RmppType::data && h.data1 >= 1 && h.data1 < expected_) return Step{Outcome::ack, ack(mad)};
        return {};
    }
    if (h.version != 1) return abort(mad, RmppType::abort, rmpp_status::unsupported_version);
    if (h.type != RmppType::data) return abort(mad, RmppType::abort, rmpp_status::bad_rmpp_type);
    if (h.status != 0) return abort(mad, RmppType::abort, rmpp_status::illegal_status);
    const bool first = (h.flags & rmpp_flag::first) != 0;
    const bool last = (h.flags & rmpp_flag::last) != 0;
    if (h.data1 == 0 || first != (h.data1 == 1)) return abort(mad, RmppType::abort, rmpp_status::inconsistent_first);
    if (h.data1 < expected_) return Step{Outcome::ack, ack(mad)}; // a resend: our ACK was lost
    if (h.data1 > expected_ || h.data1 > window_last_) return {};  // a gap, or past the window
    if (h.data1 > limits_.max_segments) return abort(mad, RmppType::stop, rmpp_status::resources_exhausted);

    const std::size_t chunk = mad_size - data_offset_;
    if (first) {
        message_.assign(mad.begin(), mad.begin() + static_cast<std::ptrdiff_t>(data_offset_));
        first_payload_length_ = h.data2;
    }
    message_.insert(message_.end(), mad.begin() + static_cast<std::ptrdiff_t>(data_offset_), mad.begin() + mad_size);
    ++expected_;
    if (last) {
        // PayloadLength of the last segment: its bytes after the RMPP header.
        const std::size_t header_after_rmpp = data_offset_ - 36;
        if (h.data2 < header_after_rmpp || h.data2 > rmpp_segment_payload)
            return abort(mad, RmppType::abort, rmpp_status::inconsistent_last);
        const std::size_t segments = expected_ - 1;
        const std::size_t total = (segments - 1) * rmpp_segment_payload + h.data2;
        if (first_payload_length_ != 0 && first_payload_length_ != total)
            return abort(mad, RmppType::abort, rmpp_status::inconsistent_last);
        message_.resize(message_.size() - (chunk - (h.data2 - header_after_rmpp)));
        window_last_ = std::max(window_last_, h.data1);
        complete_ = true;
        return Step{Outcome::complete, ack(mad)};
    }
    if (h.data1 == window_last_) {
        window_last_ = h.data1 + limits_.window;
        return Step{Outcome::ack, ack(mad)};
    }
    return {};
}

std::optional<Mad> RmppReceiver::on_timeout()
{
    if (complete_ || aborted() || message_.empty()) return std::nullopt;
    const std::vector<std::uint8_t> first(message_.begin(), message_.begin() + static_cast<std::ptrdiff_t>(data_offset_));
    abort_status_ = rmpp_status::total_time_too_long;
    message_.clear();
    return rmpp_reply(first, data_offset_, RmppType::abort, rmpp_status::total_time_too_long, 0, 0);
}

} // namespace ibsm::mad::sa
