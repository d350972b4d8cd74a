#include "mad/transport.h"

#include "mad/perf_mgt.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace ibsm::mad {
namespace {

constexpr std::size_t mad_header_size = 24;

// Where a request goes: the DR path (hop count and exit ports) or the DLID.
// Two paths to the same node count as two targets; the SM uses one per node.
std::uint64_t target_of(const SmpRequest& r)
{
    if (!r.smp.directed_route()) return (std::uint64_t{1} << 63) | r.dlid.value();
    std::uint64_t h = 0xcbf29ce484222325ULL ^ r.smp.hop_count();
    for (std::size_t i = 1; i <= r.smp.hop_count() && i < 64; ++i) {
        h ^= r.smp.initial_path(i);
        h *= 0x100000001b3ULL;
    }
    return h & ~(std::uint64_t{1} << 63);
}

} // namespace

const char* to_string(SmpFailure f)
{
    switch (f) {
    case SmpFailure::none: return "ok";
    case SmpFailure::timeout: return "timeout";
    case SmpFailure::bad_status: return "bad status";
    case SmpFailure::send_failed: return "send failed";
    case SmpFailure::shutdown: return "shutdown";
    }
    return "?";
}

Transport::Transport(boost::asio::io_context& io, MadPort& port, TransportOptions options)
    : io_(io), port_(port), options_(options),
      rng_(static_cast<std::minstd_rand::result_type>(options.seed ? options.seed : std::random_device{}())),
      timer_(io)
{
    if (options_.window == 0) options_.window = 1;
    if (options_.backoff_max < options_.backoff_base) options_.backoff_max = options_.backoff_base;
}

Transport::~Transport()
{
    *alive_ = false;
    stop();
}

void Transport::start()
{
    if (running_) return;
    running_ = true;
    if (port_.pollable_by_reactor()) {
        // The descriptor belongs to libibumad; we only borrow it for readiness.
        descriptor_.emplace(io_, port_.fd());
    }
    wait_readable();
}

void Transport::stop()
{
    if (!running_) return;
    running_ = false;
    timer_.cancel();
    deadlines_.clear();
    if (descriptor_) {
        boost::system::error_code ec;
        descriptor_->cancel(ec);
        descriptor_->release();
        descriptor_.reset();
    }
    std::vector<std::uint32_t> tids;
    for (auto& [tid, p] : inflight_) tids.push_back(tid);
    for (auto tid : tids) complete(tid, SmpResponse{SmpFailure::shutdown, {}, 0, 0}, /*from_initiation=*/true);
    for (auto& [due, p] : delayed_) queue_.push_back(std::move(p));
    delayed_.clear();
    delayed_smps_ = 0;
    for (auto* q : {&queue_, &low_queue_}) {
        while (!q->empty()) {
            Pending p = std::move(q->front());
            q->pop_front();
            if (p.source) {
                p.source->finished(p.tag, SmpResponse{SmpFailure::shutdown, {}, 0, p.attempts});
                continue;
            }
            boost::asio::post(io_, [h = std::move(p.handler)]() mutable {
                std::move(h)(SmpResponse{SmpFailure::shutdown, {}, 0, 0});
            });
        }
    }
    auto sources = std::move(sources_);
    sources_.clear();
    for (auto* s : sources) s->closed();
}

void Transport::add_source(RequestSource& source)
{
    if (!running_) {
        source.closed();
        return;
    }
    if (std::find(sources_.begin(), sources_.end(), &source) != sources_.end()) return;
    sources_.push_back(&source);
    if (!reading_batch_) pump_sends();
}

void Transport::remove_source(RequestSource& source)
{
    std::erase(sources_, &source);
    std::erase_if(queue_, [&](const Pending& p) { return p.source == &source; });
    for (auto it = delayed_.begin(); it != delayed_.end();) {
        if (it->second.source == &source) {
            --delayed_smps_;
            it = delayed_.erase(it);
        } else {
            ++it;
        }
    }
    // Deadlines of the attempts dropped here find no request and are
    // skipped; a late answer to one is counted as unmatched.
    std::erase_if(inflight_, [&](const auto& e) { return e.second.source == &source; });
}

void Transport::enqueue(SmpRequest req, boost::asio::any_completion_handler<void(SmpResponse)> handler)
{
    if (!running_) {
        boost::asio::post(io_, [h = std::move(handler)]() mutable { std::move(h)(SmpResponse{SmpFailure::shutdown, {}, 0, 0}); });
        return;
    }
    const bool low = req.smp.mgmt_class() == perf::mgmt_class_perf;
    Pending p{std::move(req), std::move(handler), 0};
    p.low = low;
    (low ? low_queue_ : queue_).push_back(std::move(p));
    // While a batch of responses is being read, the requests their handlers
    // issue wait for the burst at the end of the batch (see drain()).
    if (!reading_batch_) pump_sends(true);
}

void Transport::pump_sends(bool from_initiation)
{
    // Single requests first: their callers wait on each one; a source's
    // requests fill what room is left (see "Sources" in the header).
    while (running_ && inflight_.size() - low_inflight_ < options_.window) {
        if (!queue_.empty())
            send_next(queue_, from_initiation);
        else if (!pull_source(from_initiation))
            break;
    }
    while (running_ && smp_idle() && low_inflight_ < options_.perf_window && !low_queue_.empty())
        send_next(low_queue_, from_initiation);
}

bool Transport::pull_source(bool from_initiation)
{
    while (!sources_.empty()) {
        RequestSource* source = sources_.front();
        sources_.pop_front();
        Pending p;
        p.source = source;
        if (!source->next(p.request, p.tag)) continue; // nothing more: it adds itself again when it has
        // Sources take turns, so a short batch overlaps a long one instead
        // of waiting behind it.
        sources_.push_back(source);
        send(std::move(p), from_initiation);
        return true;
    }
    return false;
}

void Transport::send_next(std::deque<Pending>& from, bool from_initiation)
{
    Pending p = std::move(from.front());
    from.pop_front();
    send(std::move(p), from_initiation);
}

void Transport::send(Pending p, bool from_initiation)
{
    std::uint32_t tid = next_tid_++;
    if (next_tid_ == 0) next_tid_ = 1;
    auto [it, inserted] = inflight_.emplace(tid, std::move(p));
    (void)inserted;
    if (it->second.low) ++low_inflight_;
    if (!transmit(tid, it->second))
        complete(tid, SmpResponse{SmpFailure::send_failed, {}, 0, it->second.attempts}, from_initiation);
}

bool Transport::transmit(std::uint32_t tid, Pending& p)
{
    p.request.smp.set_tid(tid);
    ++p.attempts;
    if (mkeys_ && !p.low) p.request.smp.set_mkey(mkeys_->key_for(p.request.smp, p.request.dlid, p.attempts));
    // Sweeps and the SMInfo ActCount count SMPs: a counter sweep running
    // meanwhile must not show up in a re-route's SMP count.
    ++(p.low ? counters_.perf_sent : counters_.sent);
    if (!port_.send(p.request.smp, p.request.dlid, static_cast<std::uint32_t>(options_.timeout.count()))) return false;
    p.sent_at = Clock::now();
    deadlines_.push_back(Deadline{p.sent_at + options_.timeout, tid, p.attempts});
    arm_timer();
    return true;
}

void Transport::arm_timer()
{
    if (!running_) return;
    std::optional<Clock::time_point> next;
    if (!deadlines_.empty()) next = deadlines_.front().at;
    if (!delayed_.empty() && (!next || delayed_.begin()->first < *next)) next = delayed_.begin()->first;
    if (!next || (timer_armed_ && timer_at_ <= *next)) return;
    // (Re)arming cancels the wait armed for a later time; its handler sees
    // an older generation and does nothing.
    timer_armed_ = true;
    timer_at_ = *next;
    const auto generation = ++timer_generation_;
    timer_.expires_at(*next);
    timer_.async_wait([this, alive = alive_, generation](boost::system::error_code ec) {
        if (!*alive || generation != timer_generation_) return;
        timer_armed_ = false;
        if (ec) return;
        on_timer();
    });
}

void Transport::on_timer()
{
    expire_deadlines();
    release_delayed();
    arm_timer();
}

void Transport::expire_deadlines()
{
    const auto now = Clock::now();
    while (!deadlines_.empty() && deadlines_.front().at <= now) {
        Deadline d = deadlines_.front();
        deadlines_.pop_front();
        on_failure(d.tid, d.attempt, false); // ignores completed or superseded attempts
    }
    // Skip the head entries that are already answered, so the timer is not
    // armed for deadlines nobody waits on.
    while (!deadlines_.empty()) {
        auto it = inflight_.find(deadlines_.front().tid);
        if (it != inflight_.end() && it->second.attempts == deadlines_.front().attempt) break;
        deadlines_.pop_front();
    }
}

void Transport::release_delayed()
{
    const auto now = Clock::now();
    // Due resends go before requests never sent: they are older, and their
    // callers (a phase's last stragglers) are what a phase waits for.
    std::vector<Pending> due;
    while (!delayed_.empty() && delayed_.begin()->first <= now) {
        due.push_back(std::move(delayed_.begin()->second));
        delayed_.erase(delayed_.begin());
    }
    for (auto it = due.rbegin(); it != due.rend(); ++it) {
        if (!it->low) --delayed_smps_;
        (it->low ? low_queue_ : queue_).push_front(std::move(*it));
    }
    if (!due.empty()) refill();
}

std::chrono::microseconds Transport::backoff(std::uint64_t target)
{
    unsigned& level = backoff_level_[target];
    const auto base = options_.backoff_base.count();
    auto d = options_.backoff_max.count();
    if (level < 30 && base > 0 && (base << level) < d) d = base << level;
    ++level;
    if (d <= 1) return std::chrono::microseconds(d);
    std::uniform_int_distribution<long long> jitter(d / 2, d);
    return std::chrono::microseconds(jitter(rng_));
}

void Transport::on_failure(std::uint32_t tid, unsigned attempt, bool reported)
{
    auto it = inflight_.find(tid);
    if (it == inflight_.end() || it->second.attempts != attempt) return;
    Pending& p = it->second;
    // A drop reported before half the timeout cost no waiting: the
    // simulator's at-once answer. Later it is the kernel's own timeout.
    if (reported && Clock::now() - p.sent_at < options_.timeout / 2) {
        ++counters_.drops;
        ++p.drops;
    } else {
        ++counters_.timeouts;
        ++p.timeouts;
    }
    const unsigned retries = p.low ? options_.perf_retries : options_.retries;
    if (p.timeouts > retries || p.drops > options_.drop_retries) {
        complete(tid, SmpResponse{SmpFailure::timeout, {}, 0, p.attempts});
        refill();
        return;
    }
    // The resend waits outside the window and goes under a fresh TID, so a
    // late answer to this attempt is told apart (counted as unmatched)
    // instead of completing the resend twice.
    const auto delay = backoff(target_of(p.request));
    ++counters_.backoffs;
    if (p.low)
        --low_inflight_;
    else
        ++delayed_smps_;
    delayed_.emplace(Clock::now() + delay, std::move(p));
    inflight_.erase(it);
    arm_timer();
    refill();
}

void Transport::complete(std::uint32_t tid, SmpResponse response, bool from_initiation)
{
    auto it = inflight_.find(tid);
    if (it == inflight_.end()) return;
    Pending p = std::move(it->second);
    inflight_.erase(it);
    if (p.low) {
        --low_inflight_;
        if (!response.ok()) ++counters_.perf_failed;
    } else {
        ++counters_.requests;
        if (!response.ok()) ++counters_.failed;
    }
    response.attempts = p.attempts;
    if (mkeys_ && !p.low && response.failure != SmpFailure::shutdown) mkeys_->completed(p.request, response);
    if (answers_.bad_status && !p.low && response.failure == SmpFailure::bad_status)
        answers_.bad_status(p.request, response);
    if (p.source) {
        // A plain call: the source records the answer and does not resume
        // anything here, so it may run inside an initiation too.
        p.source->finished(p.tag, response);
        return;
    }
    auto run = [h = std::move(p.handler), r = std::move(response)]() mutable { std::move(h)(std::move(r)); };
    if (from_initiation)
        boost::asio::post(io_, std::move(run));
    else
        boost::asio::dispatch(io_, std::move(run));
}

void Transport::wait_readable()
{
    if (!running_ || waiting_) return;
    waiting_ = true;
    if (descriptor_) {
        descriptor_->async_wait(boost::asio::posix::stream_descriptor::wait_read,
                                [this, alive = alive_](boost::system::error_code ec) {
                                    if (!*alive) return;
                                    waiting_ = false;
                                    if (ec) return;
                                    drain();
                                    wait_readable();
                                });
        return;
    }
    boost::asio::post(io_, [this, alive = alive_]() {
        if (!*alive) return;
        waiting_ = false;
        // Completions resume their coroutines inline, which send the next
        // requests, so one turn can carry many round trips; the slice bounds
        // how long timers and signals wait for their turn.
        const auto until = std::chrono::steady_clock::now() + options_.sim_poll_slice;
        while (running_ && *alive && std::chrono::steady_clock::now() < until) {
            if (!port_.wait_readable(1)) break;
            drain();
        }
        if (*alive) wait_readable();
    });
}

void Transport::drain()
{
    const std::size_t batch = std::max<std::size_t>(1, options_.window / 2);
    for (bool more = true; more;) {
        more = false;
        reading_batch_ = true;
        std::size_t n = 0;
        while (auto r = port_.try_receive()) {
            dispatch(*r);
            if (++n == batch) {
                more = true;
                break;
            }
        }
        reading_batch_ = false;
        for (const auto& [mad, to] : gsi_out_)
            if (!port_.send_gsi(mad, to)) ++counters_.gsi_send_failures;
        gsi_out_.clear();
        pump_sends();
    }
}

void Transport::note(const std::string& kind, const std::string& detail)
{
    if (!diagnostic_) return;
    if (noted_.emplace(kind, true).second) diagnostic_(kind + ": " + detail + " (further ones counted, not logged)");
}

void Transport::dispatch(const RawReceive& r)
{
    const Smp& smp = r.smp;
    if (r.length < mad_header_size) {
        ++counters_.malformed;
        note("malformed MAD", "only " + std::to_string(r.length) + " bytes");
        return;
    }
    if (gsi_ && smp.base_version() == 1 && smp.mgmt_class() == 0x03) {
        ++counters_.gsi_received;
        gsi_(r);
        return;
    }
    const bool perf_class = smp.mgmt_class() == perf::mgmt_class_perf;
    if (smp.base_version() != 1 ||
        (!perf_class && smp.mgmt_class() != mgmt_class_lid_routed && smp.mgmt_class() != mgmt_class_directed_route)) {
        ++counters_.malformed;
        note("unexpected MAD", "base version " + std::to_string(smp.base_version()) + ", class " +
                                   hex16(smp.mgmt_class()));
        return;
    }
    const auto tid = static_cast<std::uint32_t>(smp.tid() & 0xFFFFFFFFu);
    if (r.umad_status != 0) {
        // The kernel hands back our own send when it timed out or failed.
        ++counters_.kernel_errors;
        if (auto it = inflight_.find(tid); it != inflight_.end()) on_failure(tid, it->second.attempts, true);
        return;
    }
    if (!smp.is_response()) {
        if (perf_class) {
            // The SM's PerfMgt agent only asks; no PMA lives here.
            ++counters_.malformed;
            note("PerfMgt request ignored", "method " + hex16(smp.method()) + ", attribute " + hex16(smp.attr_id()));
            return;
        }
        if (r.length < mad_size) {
            ++counters_.malformed;
            note("truncated request", std::to_string(r.length) + " bytes, attribute " + hex16(smp.attr_id()));
            return;
        }
        // The SM classes are version 1. A Get or Set of another version is
        // answered "bad version" (IBA table 27-2, status 1 in bits 2..4; the
        // answer is optional, 14.2.1: it tells the sender why it hears
        // nothing else); anything else of another version is dropped.
        if (smp.class_version() != 1) {
            ++counters_.malformed;
            note("bad class version", "class version " + std::to_string(smp.class_version()) + ", method " +
                                          hex16(smp.method()) + ", attribute " + hex16(smp.attr_id()));
            const auto m = static_cast<Method>(smp.method());
            if (m == Method::get || m == Method::set) respond(make_get_resp(smp, {}, mad_status::bad_version), r);
            return;
        }
        // A directed route has at most 63 hops (IBA 14.2.2); the SMI drops
        // anything longer (the Linux SMI too), and answering it would hand
        // the path walker a hop count past the path arrays.
        if (smp.directed_route() && smp.hop_count() > DrPath::max_hops) {
            ++counters_.malformed;
            note("directed route too long", "hop count " + std::to_string(smp.hop_count()) + ", attribute " +
                                                hex16(smp.attr_id()));
            return;
        }
        ++counters_.unsolicited;
        if (unsolicited_)
            unsolicited_(r);
        else
            note("unsolicited MAD ignored", "method " + hex16(smp.method()) + ", attribute " + hex16(smp.attr_id()));
        return;
    }
    auto it = inflight_.find(tid);
    if (it == inflight_.end()) {
        ++counters_.unmatched;
        note("unmatched response", "TID " + std::to_string(tid) + ", attribute " + hex16(smp.attr_id()) +
                                       " (late answer to a retried request?)");
        return;
    }
    if (it->second.request.smp.mgmt_class() != smp.mgmt_class()) {
        // Our TID on another class's answer: not the answer we wait for.
        ++counters_.malformed;
        note("unexpected MAD", "class " + hex16(smp.mgmt_class()) + " answering a class " +
                                   hex16(it->second.request.smp.mgmt_class()) + " request");
        if (answers_.malformed && !it->second.low)
            answers_.malformed(it->second.request, "class " + hex16(smp.mgmt_class()) + " answer to a class " +
                                                       hex16(it->second.request.smp.mgmt_class()) + " request");
        return;
    }
    if (r.length < mad_size) {
        ++counters_.malformed;
        note("truncated response", std::to_string(r.length) + " bytes, attribute " + hex16(smp.attr_id()));
        if (answers_.malformed && !it->second.low)
            answers_.malformed(it->second.request, "truncated answer of " + std::to_string(r.length) + " bytes");
        return; // the request times out and is retried
    }
    ++counters_.responses;
    // The target answers: whatever lost SMPs to it has cleared.
    if (!backoff_level_.empty()) backoff_level_.erase(target_of(it->second.request));
    const std::uint16_t status = smp.status();
    complete(tid, SmpResponse{status == 0 ? SmpFailure::none : SmpFailure::bad_status, smp, status, 0});
}

bool Transport::respond(const Smp& response, const RawReceive& request)
{
    ++counters_.sent;
    return port_.send_response(response, request);
}

bool Transport::send_gsi(std::span<const std::uint8_t, mad_size> mad, const GsiAddress& to)
{
    ++counters_.gsi_sent;
    if (reading_batch_) {
        gsi_out_.emplace_back();
        std::copy(mad.begin(), mad.end(), gsi_out_.back().first.begin());
        gsi_out_.back().second = to;
        return true;
    }
    return port_.send_gsi(mad, to);
}

bool Transport::send_once(SmpRequest request)
{
    const std::uint32_t tid = next_tid_++;
    if (next_tid_ == 0) next_tid_ = 1;
    request.smp.set_tid(tid);
    ++counters_.sent;
    return port_.send(request.smp, request.dlid, static_cast<std::uint32_t>(options_.timeout.count()));
}

} // namespace ibsm::mad
