#include "ibsim_rmpp/endpoint.h"

#include "mad/sa/rmpp_wire.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ibsm::ibsim_rmpp {

namespace sa = mad::sa;

namespace {

constexpr std::size_t rmpp_header_end = 36;

std::uint64_t tid_of(const std::vector<std::uint8_t>& mad)
{
    std::uint64_t t = 0;
    for (std::size_t i = 8; i < 16; ++i) t = (t << 8) | mad[i];
    return t;
}

bool rmpp_active(const std::vector<std::uint8_t>& mad)
{
    return mad.size() >= rmpp_header_end && (mad[26] & sa::rmpp_flag::active) != 0;
}

bool is_response(const std::vector<std::uint8_t>& mad)
{
    return mad.size() > 3 && (mad[3] & 0x80) != 0;
}

Packet with_mad(const Packet& base, std::span<const std::uint8_t> mad)
{
    Packet p;
    p.hdr = base.hdr;
    p.hdr.status = 0;
    p.mad.assign(mad.begin(), mad.end());
    p.hdr.length = static_cast<std::uint32_t>(sizeof(ib_user_mad_t) + p.mad.size());
    return p;
}

} // namespace

void Endpoint::registered(std::uint32_t agent, std::uint8_t rmpp_version)
{
    agents_[agent] = rmpp_version;
}

void Endpoint::unregistered(std::uint32_t agent)
{
    agents_.erase(agent);
}

bool Endpoint::rmpp_agent(std::uint32_t agent) const
{
    auto it = agents_.find(agent);
    return it != agents_.end() && it->second != 0;
}

std::vector<Packet> Endpoint::take_outbox()
{
    std::vector<Packet> out;
    out.swap(outbox_);
    return out;
}

void Endpoint::reply(const Packet& to, const sa::Mad& mad)
{
    outbox_.push_back(with_mad(to, mad));
}

std::vector<Packet> Endpoint::send(Packet p, Clock::time_point now)
{
    const Packet request = p;
    std::vector<Packet> out;
    const std::size_t offset = p.mad.size() > 1 ? sa::rmpp_data_offset(p.mad[1]) : 0;
    if (!rmpp_agent(p.hdr.agent_id) || !rmpp_active(p.mad) || p.mad.size() < offset) {
        out.push_back(std::move(p));
    } else {
        const auto header = std::span<const std::uint8_t>(p.mad).first(offset);
        sa::RmppSender sender(header,
                              std::vector<std::uint8_t>(p.mad.begin() + static_cast<std::ptrdiff_t>(offset), p.mad.end()),
                              settings_.retries);
        if (sender.segment_count() == 1) {
            // One segment: First|Last with its PayloadLength, no ACK awaited.
            ++counters_.sent_segments;
            out.push_back(with_mad(p, sender.segment(1)));
        } else {
            const Key key{p.hdr.addr.lid, tid_of(p.mad) & 0xffffffffu, p.mad[1]};
            ++counters_.sent_transfers;
            auto [it, fresh] = senders_.insert_or_assign(key, Sending{std::move(p), std::move(sender), now});
            (void)fresh;
            pump(it->second, now);
            out = take_outbox();
            await_response(request, {}, now);
            return out;
        }
    }
    await_response(request, out, now);
    return out;
}

void Endpoint::await_response(const Packet& request, const std::vector<Packet>& written, Clock::time_point now)
{
    if (request.hdr.timeout_ms == 0 || request.mad.size() < 16 || is_response(request.mad)) return;
    Waiting w;
    w.request = request;
    if (written.size() == 1) w.again = written.front();
    w.deadline = now + std::chrono::milliseconds(request.hdr.timeout_ms);
    w.retries_left = request.hdr.retries;
    const WaitKey key{request.hdr.agent_id, static_cast<std::uint32_t>(tid_of(request.mad)), request.mad[1]};
    waiting_.insert_or_assign(key, std::move(w));
}

void Endpoint::answered(const Packet& response, bool whole, Clock::time_point now)
{
    if (response.mad.size() < 16 || !is_response(response.mad)) return;
    const WaitKey key{response.hdr.agent_id, static_cast<std::uint32_t>(tid_of(response.mad)), response.mad[1]};
    auto it = waiting_.find(key);
    if (it == waiting_.end()) return;
    if (whole) {
        waiting_.erase(it);
        return;
    }
    // A segment of the answer: its transfer's own timers run now.
    it->second.deadline = std::max(it->second.deadline, now + settings_.receive_timeout);
}

void Endpoint::tick_waiting(Clock::time_point now)
{
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        auto& w = it->second;
        if (w.deadline > now) {
            ++it;
            continue;
        }
        const auto low_tid = std::get<1>(it->first);
        const bool still_sending = std::any_of(senders_.begin(), senders_.end(), [&](const auto& kv) {
            return std::get<1>(kv.first) == low_tid && std::get<2>(kv.first) == std::get<2>(it->first);
        });
        const auto timeout = std::chrono::milliseconds(w.request.hdr.timeout_ms);
        if (still_sending) {
            w.deadline = now + timeout;
            ++it;
            continue;
        }
        if (w.retries_left > 0) {
            --w.retries_left;
            w.deadline = now + timeout;
            if (w.again) {
                outbox_.push_back(*w.again);
                ++counters_.requests_resent;
            }
            ++it;
            continue;
        }
        ++counters_.requests_timed_out;
        Packet back = w.request;
        back.hdr.status = ETIMEDOUT;
        back.mad.resize(std::min<std::size_t>(back.mad.size(), sa::mad_size));
        back.hdr.length = static_cast<std::uint32_t>(sizeof(ib_user_mad_t) + back.mad.size());
        ready_.push_back(std::move(back));
        it = waiting_.erase(it);
    }
}

void Endpoint::pump(Sending& s, Clock::time_point now)
{
    for (auto n : s.sender.take_sendable()) {
        outbox_.push_back(with_mad(s.base, s.sender.segment(n)));
        ++counters_.sent_segments;
    }
    s.deadline = now + settings_.ack_timeout;
}

void Endpoint::fail_send(const Sending& s)
{
    ++counters_.sent_aborted;
    if (s.base.hdr.timeout_ms == 0) return;
    waiting_.erase(WaitKey{s.base.hdr.agent_id, static_cast<std::uint32_t>(tid_of(s.base.mad)), s.base.mad[1]});
    // The client waits for an answer to what it sent: as the kernel does for
    // a request that got none, hand the request back with ETIMEDOUT.
    Packet back = s.base;
    back.hdr.status = ETIMEDOUT;
    back.mad.resize(std::min<std::size_t>(back.mad.size(), sa::mad_size));
    back.hdr.length = static_cast<std::uint32_t>(sizeof(ib_user_mad_t) + back.mad.size());
    ready_.push_back(std::move(back));
}

void Endpoint::received(Packet p, Clock::time_point now)
{
    if (!rmpp_agent(p.hdr.agent_id) || !rmpp_active(p.mad)) {
        if (p.hdr.status == 0) answered(p, true, now);
        ready_.push_back(std::move(p));
        return;
    }
    const auto r = sa::read_rmpp(p.mad);
    if (p.hdr.status != 0) {
        // The simulator hands back one of our own RMPP packets it could not
        // deliver: the transfer's timers deal with the loss.
        ++counters_.control_dropped;
        return;
    }
    if (r.type == sa::RmppType::data) {
        answered(p, false, now);
        on_data(std::move(p), now);
    } else {
        on_control(p, r, now);
    }
}

void Endpoint::on_control(const Packet& p, const sa::RmppHeader& r, Clock::time_point now)
{
    const std::uint64_t tid = tid_of(p.mad);
    auto s = senders_.find(Key{p.hdr.addr.lid, tid & 0xffffffffu, p.mad[1]});
    if (s != senders_.end()) {
        if (r.type == sa::RmppType::ack) {
            switch (s->second.sender.on_ack(r.data1, r.data2)) {
            case sa::RmppSender::AckResult::done:
                ++counters_.sent_completed;
                senders_.erase(s);
                return;
            case sa::RmppSender::AckResult::progress: pump(s->second, now); return;
            case sa::RmppSender::AckResult::ignored: return;
            case sa::RmppSender::AckResult::abort:
                outbox_.push_back(with_mad(s->second.base, s->second.sender.abort_mad(s->second.sender.abort_status())));
                fail_send(s->second);
                senders_.erase(s);
                return;
            }
            return;
        }
        // STOP or ABORT from the receiver: the transfer is over.
        fail_send(s->second);
        senders_.erase(s);
        return;
    }
    auto rx = receivers_.find(Key{p.hdr.addr.lid, tid, p.mad[1]});
    if (rx != receivers_.end() && (r.type == sa::RmppType::stop || r.type == sa::RmppType::abort)) {
        ++counters_.received_aborted;
        receivers_.erase(rx);
        return;
    }
    ++counters_.control_dropped; // for no transfer of ours: the kernel drops it too
}

void Endpoint::on_data(Packet p, Clock::time_point now)
{
    const Key key{p.hdr.addr.lid, tid_of(p.mad), p.mad[1]};
    auto it = receivers_.find(key);
    const auto r = sa::read_rmpp(p.mad);
    if (it == receivers_.end()) {
        if (r.data1 != 1) {
            ++counters_.control_dropped; // no transfer to continue (an old one's resend)
            return;
        }
        sa::RmppReceiver::Limits limits{settings_.window, settings_.max_segments};
        Packet first = p;
        first.mad.clear();
        it = receivers_.emplace(key, Receiving{std::move(first), sa::RmppReceiver(sa::rmpp_data_offset(p.mad[1]), limits), now})
                 .first;
        ++counters_.received_transfers;
    }
    auto& rx = it->second;
    if (r.data1 == 1 && !rx.receiver.complete()) rx.first.hdr = p.hdr;
    const auto step = rx.receiver.on_segment(p.mad);
    if (step.reply) {
        reply(p, *step.reply);
        if (step.outcome != sa::RmppReceiver::Outcome::aborted) ++counters_.acks_sent;
    }
    rx.deadline = now + settings_.receive_timeout;
    switch (step.outcome) {
    case sa::RmppReceiver::Outcome::complete: {
        ++counters_.received_completed;
        Packet whole = with_mad(rx.first, rx.receiver.message());
        whole.hdr.status = rx.first.hdr.status;
        answered(whole, true, now);
        ready_.push_back(std::move(whole));
        return; // kept until its deadline: a resent last segment is ACKed again
    }
    case sa::RmppReceiver::Outcome::aborted:
        ++counters_.received_aborted;
        receivers_.erase(it);
        return;
    case sa::RmppReceiver::Outcome::ack:
    case sa::RmppReceiver::Outcome::ignored: return;
    }
}

void Endpoint::tick(Clock::time_point now)
{
    tick_waiting(now);
    for (auto it = senders_.begin(); it != senders_.end();) {
        auto& s = it->second;
        if (s.deadline > now) {
            ++it;
            continue;
        }
        if (s.sender.on_timeout()) {
            pump(s, now);
            ++it;
            continue;
        }
        outbox_.push_back(with_mad(s.base, s.sender.abort_mad(s.sender.abort_status())));
        fail_send(s);
        it = senders_.erase(it);
    }
    for (auto it = receivers_.begin(); it != receivers_.end();) {
        auto& rx = it->second;
        if (rx.deadline > now) {
            ++it;
            continue;
        }
        if (auto abort = rx.receiver.on_timeout()) {
            reply(rx.first, *abort);
            ++counters_.received_aborted;
        }
        it = receivers_.erase(it);
    }
}

std::optional<Clock::time_point> Endpoint::next_deadline() const
{
    std::optional<Clock::time_point> d;
    for (const auto& [k, s] : senders_) d = d ? std::min(*d, s.deadline) : s.deadline;
    for (const auto& [k, r] : receivers_) d = d ? std::min(*d, r.deadline) : r.deadline;
    for (const auto& [k, w] : waiting_) d = d ? std::min(*d, w.deadline) : w.deadline;
    return d;
}

} // namespace ibsm::ibsim_rmpp
