#include "mad/sa/rmpp_sender.h"

#include <algorithm>

namespace ibsm::mad::sa {

namespace {

std::vector<std::uint8_t> encoded(const SaHeader& h)
{
    const Mad m = make_mad(h);
    return std::vector<std::uint8_t>(m.begin(), m.begin() + header_size);
}

} // namespace

RmppSender::RmppSender(const SaHeader& header, std::vector<std::uint8_t> payload, unsigned retries)
    : RmppSender(std::span<const std::uint8_t>(encoded(header)), std::move(payload), retries)
{
}

RmppSender::RmppSender(std::span<const std::uint8_t> header, std::vector<std::uint8_t> payload, unsigned retries)
    : header_(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(header.size(), 36, mad_size))),
      payload_(std::move(payload)), retries_(retries)
{
    header_.resize(std::max<std::size_t>(header_.size(), 36), 0);
    chunk_ = mad_size - header_.size();
    if (chunk_ == 0) chunk_ = 1; // a header filling the MAD: nothing sensible to carry, but no division by zero
    count_ = std::max<std::uint32_t>(1, static_cast<std::uint32_t>((payload_.size() + chunk_ - 1) / chunk_));
}

Mad RmppSender::segment(std::uint32_t n) const
{
    RmppHeader r{1, RmppType::data, 0x1f, rmpp_flag::active, 0, n, 0};
    // PayloadLength counts the bytes after the RMPP header of every segment
    // (the SA fields and the data): the whole transfer on the first segment,
    // what the last one holds on the last (the Linux receiver computes the
    // length from it).
    const std::size_t pad = std::size_t{count_} * chunk_ - payload_.size();
    if (n == 1) {
        r.flags |= rmpp_flag::first;
        r.data2 = static_cast<std::uint32_t>(std::size_t{count_} * rmpp_segment_payload - pad);
    }
    if (n == count_) {
        r.flags |= rmpp_flag::last;
        r.data2 = static_cast<std::uint32_t>(rmpp_segment_payload - pad);
    }
    Mad m{};
    std::copy(header_.begin(), header_.end(), m.begin());
    write_rmpp(m, r);
    const std::size_t from = std::size_t{n - 1} * chunk_;
    if (from < payload_.size()) {
        const std::size_t len = std::min(chunk_, payload_.size() - from);
        std::copy_n(payload_.begin() + static_cast<std::ptrdiff_t>(from), len, m.begin() + static_cast<std::ptrdiff_t>(header_.size()));
    }
    return m;
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
    Mad m{};
    std::copy(header_.begin(), header_.end(), m.begin());
    write_rmpp(m, RmppHeader{1, RmppType::abort, 0x1f, rmpp_flag::active, rmpp_status, 0, 0});
    return m;
}

} // namespace ibsm::mad::sa
