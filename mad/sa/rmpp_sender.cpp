#include "mad/sa/rmpp_sender.h"

#include <algorithm>

namespace ibsm::mad::sa {

RmppSender::RmppSender(const SaHeader& header, std::vector<std::uint8_t> payload, unsigned retries)
    : header_(header), payload_(std::move(payload)), retries_(retries)
{
    count_ = std::max<std::uint32_t>(1, static_cast<std::uint32_t>((payload_.size() + data_size - 1) / data_size));
}

Mad RmppSender::segment(std::uint32_t n) const
{
    SaHeader h = header_;
    h.rmpp.version = 1;
    h.rmpp.type = RmppType::data;
    h.rmpp.resp_time = 0x1f;
    h.rmpp.flags = rmpp_flag::active;
    h.rmpp.status = 0;
    h.rmpp.data1 = n;
    h.rmpp.data2 = 0;
    // PayloadLength counts the SA fields (20 bytes) of every segment plus
    // the data: the whole transfer on the first segment, what the last one
    // holds on the last (the Linux receiver computes the length from it).
    const std::size_t pad = std::size_t{count_} * data_size - payload_.size();
    if (n == 1) {
        h.rmpp.flags |= rmpp_flag::first;
        h.rmpp.data2 = static_cast<std::uint32_t>(std::size_t{count_} * rmpp_segment_payload - pad);
    }
    if (n == count_) {
        h.rmpp.flags |= rmpp_flag::last;
        h.rmpp.data2 = static_cast<std::uint32_t>(rmpp_segment_payload - pad);
    }
    const std::size_t from = std::size_t{n - 1} * data_size;
    const std::size_t len = from < payload_.size() ? std::min(data_size, payload_.size() - from) : 0;
    return make_mad(h, std::span<const std::uint8_t>(payload_.data() + std::min(from, payload_.size()), len));
}

std::vector<std::uint32_t> RmppSender::take_sendable()
{
    std::vector<std::uint32_t> out;
    const std::uint32_t limit = std::min(window_last_, count_);
    for (; next_ <= limit; ++next_) out.push_back(next_);
    highest_sent_ = std::max(highest_sent_, next_ - 1);
    return out;
}

RmppSender::AckResult RmppSender::on_ack(std::uint32_t segment, std::uint32_t new_window_last)
{
    if (done()) return AckResult::ignored;
    if (segment < last_acked_) return AckResult::ignored;
    if (segment > highest_sent_) {
        abort_status_ = rmpp_status::seg_num_too_big;
        return AckResult::abort;
    }
    if (new_window_last < segment) {
        abort_status_ = rmpp_status::unacceptable_newwin;
        return AckResult::abort;
    }
    const bool moved = segment > last_acked_ || new_window_last > window_last_;
    last_acked_ = segment;
    window_last_ = std::max(window_last_, std::min(new_window_last, count_));
    if (moved) timeouts_ = 0;
    if (done()) return AckResult::done;
    return moved ? AckResult::progress : AckResult::ignored;
}

bool RmppSender::on_timeout()
{
    if (done()) return true;
    if (++timeouts_ > retries_) {
        abort_status_ = rmpp_status::too_many_retries;
        return false;
    }
    next_ = last_acked_ + 1;
    return true;
}

Mad RmppSender::abort_mad(std::uint8_t rmpp_status) const
{
    SaHeader h = header_;
    h.rmpp.version = 1;
    h.rmpp.type = RmppType::abort;
    h.rmpp.resp_time = 0x1f;
    h.rmpp.flags = rmpp_flag::active;
    h.rmpp.status = rmpp_status;
    h.rmpp.data1 = 0;
    h.rmpp.data2 = 0;
    return make_mad(h);
}

} // namespace ibsm::mad::sa
