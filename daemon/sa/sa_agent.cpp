#include "daemon/sa/sa_agent.h"

#include "mad/sa/rmpp_wire.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

namespace ibsm::daemon {

namespace sa = mad::sa;

namespace {

bool known_request_method(std::uint8_t m)
{
    switch (m) {
    case sa::method::get:
    case sa::method::set:
    case sa::method::get_table:
    case sa::method::get_trace_table:
    case sa::method::get_multi:
    case sa::method::delete_: return true;
    default: return false;
    }
}

bool table_method(std::uint8_t m)
{
    return m == sa::method::get_table || m == sa::method::get_multi || m == sa::method::get_trace_table;
}

// The answer's header: the request's (C15-0.1.x: same TID, attribute,
// modifier, component mask), response method, SM_Key 0 (C15-0.1.5), no RMPP
// unless the sender adds it.
sa::SaHeader response_header(const sa::SaHeader& request, std::uint16_t status, std::uint16_t attr_offset)
{
    sa::SaHeader h = request;
    h.base_version = 1;
    h.mgmt_class = sa::mgmt_class;
    h.class_version = sa::class_version;
    h.method = sa::response_method(request.method);
    h.status = status;
    h.sm_key = 0;
    h.attr_offset = attr_offset;
    h.rmpp = sa::RmppHeader{};
    return h;
}

// The requester's port GUID as the last snapshot knows its LID (for logs).
std::string requester_port(const SnapshotPtr& snap, Lid lid)
{
    if (!snap) return "unknown";
    auto p = snap->lids.lids.port_of(lid);
    if (!p) return "unknown";
    const auto& n = snap->found.fabric.node(p->node);
    return (n.is_switch() ? n.guid : n.port(p->port).guid).str();
}

} // namespace

SaAgent::SaAgent(boost::asio::io_context& io, mad::Transport& transport, SaSettings settings)
    : io_(io), transport_(transport), settings_(settings), backlog_timer_(io)
{
}

SaAgent::~SaAgent()
{
    *alive_ = false;
}

void SaAgent::install()
{
    transport_.set_gsi_handler([this](const mad::RawReceive& r) { on_mad(r); });
}

void SaAgent::handle(std::uint16_t attr_id, std::size_t record_size, std::initializer_list<std::uint8_t> methods,
                     SaHandler handler)
{
    handlers_[attr_id] = Registration{record_size, std::set<std::uint8_t>(methods), std::move(handler)};
}

void SaAgent::send(const mad::GsiAddress& to, const sa::Mad& mad)
{
    if (!transport_.send_gsi(std::span<const std::uint8_t, sa::mad_size>(mad), to)) ++counters_.send_failures;
}

void SaAgent::answer(const mad::GsiAddress& to, const sa::SaHeader& request, std::uint16_t status,
                     std::span<const std::uint8_t> data, std::uint16_t attr_offset)
{
    auto h = response_header(request, status, attr_offset);
    ++counters_.answered;
    if (status != sa::status::ok) ++counters_.errors;
    if (h.method == sa::method::get_table_resp || h.method == sa::method::get_multi_resp) {
        // A table answer is RMPP even when it fits one MAD (IBA 15.2.5.x):
        // one DATA segment, First and Last, that nobody needs to track.
        sa::RmppSender one(h, std::vector<std::uint8_t>(data.begin(), data.end()), 0);
        send(to, one.segment(1));
        ++counters_.rmpp_segments;
        return;
    }
    send(to, sa::make_mad(h, data));
}

void SaAgent::answer_error(const mad::RawReceive& r, const sa::SaHeader& h, std::uint16_t status)
{
    answer(requester_of(r), h, status, {}, 0);
}

void SaAgent::on_mad(const mad::RawReceive& r)
{
    ++counters_.received;
    if (r.umad_status != 0) return; // the port reporting on one of our sends: Reports retry on their own
    const auto bytes = std::span<const std::uint8_t>(r.smp.bytes());
    // Smp zero-pads short input, so the header decodes; the length tells.
    auto h = sa::decode_header(bytes);
    if (!h || h->base_version != 1) {
        ++counters_.malformed;
        return;
    }
    const bool response = (h->method & 0x80) != 0;
    // GSI MADs are 256 bytes; a shorter request lost part of its header or
    // record: ERR_REQ_INVALID (its first 24 bytes still say whom to answer).
    if (r.length < sa::mad_size) {
        ++counters_.malformed;
        if (!response && r.length >= 24) answer_error(r, *h, sa::status::req_invalid);
        return;
    }
    if (h->class_version != sa::class_version) {
        ++counters_.malformed;
        if (!response) answer_error(r, *h, sa::status::bad_version);
        return;
    }
    if (response) {
        on_response(*h);
        return;
    }
    if (h->rmpp.active() && h->rmpp.type != sa::RmppType::data) {
        on_rmpp_control(r, *h);
        return;
    }
    if (h->rmpp.active() && !((h->rmpp.flags & sa::rmpp_flag::first) && (h->rmpp.flags & sa::rmpp_flag::last))) {
        on_request_segment(r, *h);
        return;
    }
    // New requests wait behind a sweep; protocol traffic (ACKs, ReportResp)
    // above never does.
    if (!backlog_.empty() || !take_token()) {
        if (backlog_.size() >= settings_.backlog_max) {
            backlog_.pop_front();
            ++counters_.backlog_dropped;
        }
        backlog_.push_back(r);
        ++counters_.deferred;
        arm_backlog();
        return;
    }
    on_request(r, *h, sa::data_of(r.smp.bytes()));
}

bool SaAgent::take_token()
{
    if (settings_.busy_rate == 0 || !busy()) return true;
    const auto now = std::chrono::steady_clock::now();
    // Up to 1/64 s worth of answers may go at once.
    const double burst = std::max(1.0, settings_.busy_rate / 64.0);
    if (tokens_at_ == std::chrono::steady_clock::time_point{}) tokens_ = burst;
    else tokens_ = std::min(burst, tokens_ + std::chrono::duration<double>(now - tokens_at_).count() * settings_.busy_rate);
    tokens_at_ = now;
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
}

void SaAgent::arm_backlog()
{
    if (backlog_armed_ || backlog_.empty()) return;
    backlog_armed_ = true;
    backlog_timer_.expires_after(std::chrono::milliseconds(1));
    backlog_timer_.async_wait([this, alive = alive_](const boost::system::error_code& ec) {
        if (ec || !*alive) return;
        backlog_armed_ = false;
        drain_backlog();
    });
}

void SaAgent::drain_backlog()
{
    while (!backlog_.empty() && take_token()) {
        const auto r = std::move(backlog_.front());
        backlog_.pop_front();
        on_request(r, *sa::decode_header(r.smp.bytes()), sa::data_of(r.smp.bytes()));
    }
    arm_backlog();
}

void SaAgent::on_response(const sa::SaHeader& h)
{
    if (h.method != sa::method::report_resp) return;
    // The port overwrites the TID's high half with the agent id: match the low.
    auto it = std::find_if(reports_.begin(), reports_.end(),
                           [&](const auto& kv) { return (kv.first & 0xffffffffu) == (h.tid & 0xffffffffu); });
    if (it == reports_.end()) return;
    ++counters_.reports_acked;
    reports_.erase(it);
}

void SaAgent::on_rmpp_control(const mad::RawReceive& r, const sa::SaHeader& h)
{
    const TransferKey key{r.source_lid.value(), h.tid};
    auto it = transfers_.find(key);
    if (it == transfers_.end()) {
        // The requester gave up sending us its request.
        auto in = requests_.find(key);
        if (in != requests_.end() && (h.rmpp.type == sa::RmppType::stop || h.rmpp.type == sa::RmppType::abort)) {
            ++counters_.rmpp_requests_aborted;
            requests_.erase(in);
        }
        return;
    }
    auto& t = *it->second;
    if (h.rmpp.type == sa::RmppType::ack) {
        switch (t.sender.on_ack(h.rmpp.data1, h.rmpp.data2)) {
        case sa::RmppSender::AckResult::done:
            ++counters_.rmpp_completed;
            transfers_.erase(it);
            return;
        case sa::RmppSender::AckResult::progress: pump(key); return;
        case sa::RmppSender::AckResult::ignored: return;
        case sa::RmppSender::AckResult::abort:
            send(t.to, t.sender.abort_mad(t.sender.abort_status()));
            ++counters_.rmpp_aborted;
            transfers_.erase(it);
            return;
        }
        return;
    }
    // STOP or ABORT from the receiver: it wants no more.
    ++counters_.rmpp_aborted;
    transfers_.erase(it);
}

void SaAgent::on_request_segment(const mad::RawReceive& r, const sa::SaHeader& h)
{
    const TransferKey key{r.source_lid.value(), h.tid};
    auto it = requests_.find(key);
    if (it == requests_.end()) {
        if (h.rmpp.data1 != 1) return; // no request to continue (a late resend of one answered)
        if (requests_.size() >= settings_.max_transfers) {
            ++counters_.rmpp_requests_aborted;
            send(requester_of(r), sa::rmpp_reply(r.smp.bytes(), sa::header_size, sa::RmppType::stop,
                                                 sa::rmpp_status::resources_exhausted, 0, 0));
            return;
        }
        const sa::RmppReceiver::Limits limits{settings_.rmpp_request_window, settings_.rmpp_request_max_segments};
        it = requests_
                 .emplace(key, std::make_unique<Incoming>(io_, requester_of(r), sa::RmppReceiver(sa::header_size, limits)))
                 .first;
    }
    auto& in = *it->second;
    const auto step = in.receiver.on_segment(r.smp.bytes());
    if (step.reply) send(in.from, *step.reply);
    switch (step.outcome) {
    case sa::RmppReceiver::Outcome::aborted:
        ++counters_.rmpp_requests_aborted;
        requests_.erase(it);
        return;
    case sa::RmppReceiver::Outcome::complete: {
        ++counters_.rmpp_requests;
        // Kept until its timer ends, so a resent last segment is ACKed again.
        arm_request(key);
        const auto& whole = in.receiver.message();
        auto request = *sa::decode_header(whole);
        request.rmpp = sa::RmppHeader{}; // received and ACKed: answered as a one-MAD request
        const std::vector<std::uint8_t> data(whole.begin() + sa::header_size, whole.end());
        on_request(r, request, data);
        return;
    }
    case sa::RmppReceiver::Outcome::ack:
    case sa::RmppReceiver::Outcome::ignored:
        if (!in.receiver.complete()) arm_request(key);
        return;
    }
}

void SaAgent::arm_request(const TransferKey& key)
{
    auto& in = *requests_.at(key);
    in.timer.expires_after(settings_.rmpp_request_timeout);
    in.timer.async_wait([this, key, alive = alive_](const boost::system::error_code& ec) {
        if (ec || !*alive) return;
        auto it = requests_.find(key);
        if (it == requests_.end()) return;
        if (auto abort = it->second->receiver.on_timeout()) {
            send(it->second->from, *abort);
            ++counters_.rmpp_requests_aborted;
        }
        requests_.erase(it);
    });
}

void SaAgent::on_request(const mad::RawReceive& r, const sa::SaHeader& h, std::span<const std::uint8_t> data)
{
    const SaTrust trust = sa_trust(settings_.sm_key, h.sm_key);
    if (trust == SaTrust::wrong_key) {
        ++counters_.wrong_key;
        std::uint64_t held = 0;
        if (wrong_key_log_.admit(std::chrono::steady_clock::now(), &held))
            spdlog::warn("SA: request from LID {} (method 0x{:02x}, attribute 0x{:04x}) carries SM_Key {:#018x}, not "
                         "ours: discarded{}",
                         r.source_lid.value(), h.method, h.attr_id, h.sm_key,
                         held ? fmt::format(" ({} more since the last line)", held) : std::string());
        return;
    }
    if (trust == SaTrust::trusted) ++counters_.trusted;
    if (!known_request_method(h.method)) {
        answer_error(r, h, sa::status::method_unsupported);
        return;
    }
    // The SM's own state is not a host's to write.
    if ((h.method == sa::method::set || h.method == sa::method::delete_) && trust != SaTrust::trusted &&
        !host_writable(h.attr_id)) {
        ++counters_.denied;
        std::uint64_t held = 0;
        if (denied_log_.admit(std::chrono::steady_clock::now(), &held))
            spdlog::warn("SA: untrusted {} of attribute 0x{:04x} from LID {} (port {}) refused{}",
                         h.method == sa::method::set ? "Set" : "Delete", h.attr_id, r.source_lid.value(),
                         requester_port(snapshot_, r.source_lid),
                         held ? fmt::format(" ({} more since the last line)", held) : std::string());
        answer_error(r, h, sa::status::denied);
        return;
    }
    auto reg = handlers_.find(h.attr_id);
    if (reg == handlers_.end() || !reg->second.methods.contains(h.method)) {
        answer_error(r, h, sa::status::method_attr_unsupported);
        return;
    }
    const TransferKey key{r.source_lid.value(), h.tid};
    if (transfers_.contains(key)) return; // a resent request whose answer is under way
    if (!snapshot_) {
        answer_error(r, h, sa::status::no_resources);
        return;
    }
    if (h.rmpp.active()) {
        // A one-segment RMPP request (GetMulti): acknowledge it as its
        // receiver (ACK of segment 1, window 1) before answering.
        sa::SaHeader ack = h;
        ack.method = sa::response_method(h.method);
        ack.rmpp = sa::RmppHeader{1, sa::RmppType::ack, 0x1f, sa::rmpp_flag::active, 0, 1, 1};
        send(requester_of(r), sa::make_mad(ack));
    }
    const auto& reg_entry = reg->second;
    SaAnswer a;
    try {
        a = reg_entry.handler(
            SaRequest{h, data, requester_of(r), *snapshot_, trust == SaTrust::trusted});
    } catch (const std::exception& e) {
        spdlog::warn("SA: handler for attribute 0x{:04x} failed: {}", h.attr_id, e.what());
        a = SaAnswer::error(sa::status::no_resources);
    }
    if (a.status != sa::status::ok) {
        answer_error(r, h, a.status);
        return;
    }
    const std::uint16_t offset = sa::attr_offset_for(reg_entry.record_size);
    const std::size_t stride = std::size_t{offset} * 8;
    if (!table_method(h.method)) {
        if (h.method == sa::method::get && a.records.empty()) return answer_error(r, h, sa::status::no_records);
        if (h.method == sa::method::get && a.records.size() > 1)
            return answer_error(r, h, sa::status::too_many_records);
        std::vector<std::uint8_t> one(stride, 0);
        const auto& rec = a.records.empty()
                              ? std::vector<std::uint8_t>(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(
                                                                                        std::min(stride, data.size())))
                              : a.records.front();
        std::copy_n(rec.begin(), std::min(rec.size(), stride), one.begin());
        answer(requester_of(r), h, sa::status::ok, one, offset);
        return;
    }
    std::vector<std::uint8_t> payload(a.records.size() * stride, 0);
    for (std::size_t i = 0; i < a.records.size(); ++i)
        std::copy_n(a.records[i].begin(), std::min(a.records[i].size(), stride), payload.begin() + i * stride);
    const std::uint16_t resp_offset = a.records.empty() ? 0 : offset;
    if (payload.size() <= sa::data_size) {
        answer(requester_of(r), h, sa::status::ok, payload, resp_offset);
        return;
    }
    if (transfers_.size() >= settings_.max_transfers) {
        answer_error(r, h, sa::status::no_resources);
        return;
    }
    ++counters_.answered;
    start_transfer(requester_of(r), response_header(h, sa::status::ok, resp_offset), std::move(payload));
}

void SaAgent::start_transfer(const mad::GsiAddress& to, sa::SaHeader response, std::vector<std::uint8_t> payload)
{
    const TransferKey key{to.lid.value(), response.tid};
    ++counters_.rmpp_transfers;
    transfers_.emplace(key, std::make_unique<Transfer>(
                                io_, to, sa::RmppSender(response, std::move(payload), settings_.rmpp_retries)));
    pump(key);
}

void SaAgent::pump(const TransferKey& key)
{
    auto it = transfers_.find(key);
    if (it == transfers_.end()) return;
    auto& t = *it->second;
    for (auto n : t.sender.take_sendable()) {
        send(t.to, t.sender.segment(n));
        ++counters_.rmpp_segments;
    }
    arm(key);
}

void SaAgent::arm(const TransferKey& key)
{
    auto& t = *transfers_.at(key);
    t.timer.expires_after(settings_.rmpp_timeout);
    t.timer.async_wait([this, key, alive = alive_](const boost::system::error_code& ec) {
        if (ec || !*alive) return;
        auto it = transfers_.find(key);
        if (it == transfers_.end()) return;
        auto& tr = *it->second;
        if (!tr.sender.on_timeout()) {
            send(tr.to, tr.sender.abort_mad(tr.sender.abort_status()));
            ++counters_.rmpp_aborted;
            transfers_.erase(it);
            return;
        }
        pump(key);
    });
}

void SaAgent::send_report(const mad::GsiAddress& to, std::uint16_t attr_id, std::span<const std::uint8_t> data)
{
    const std::uint64_t tid = next_report_tid_++;
    sa::SaHeader h;
    h.method = sa::method::report;
    h.tid = tid;
    h.attr_id = attr_id;
    Report rep{to, sa::make_mad(h, data), 0, std::make_unique<boost::asio::steady_timer>(io_)};
    reports_.emplace(tid, std::move(rep));
    send_report_attempt(tid);
}

void SaAgent::send_report_attempt(std::uint64_t tid)
{
    auto it = reports_.find(tid);
    if (it == reports_.end()) return;
    auto& rep = it->second;
    if (rep.attempts > settings_.report_retries) {
        ++counters_.reports_failed;
        reports_.erase(it);
        return;
    }
    ++rep.attempts;
    ++counters_.reports_sent;
    send(rep.to, rep.mad);
    rep.timer->expires_after(settings_.report_timeout);
    rep.timer->async_wait([this, tid, alive = alive_](const boost::system::error_code& ec) {
        if (ec || !*alive) return;
        send_report_attempt(tid);
    });
}

} // namespace ibsm::daemon
