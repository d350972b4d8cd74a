#include "daemon/health/perf_poller.h"

#include "daemon/core/smp_ops.h"
#include "daemon/core/work_pool.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <set>

namespace ibsm::daemon {

namespace perf = mad::perf;

struct PerfPoller::SweepState {
    PerfSweepStats stats;
    std::set<health::PortId> seen; // every port the sweep meant to read
    double now = 0;
};

namespace {

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

} // namespace

PerfPoller::PerfPoller(boost::asio::any_io_executor ex, mad::Transport& transport, const MastershipGate& gate,
                       PerfSettings settings)
    : transport_(transport), gate_(gate), settings_(settings), timer_(ex)
{
    transport_.set_perf_window(settings_.window);
}

void PerfPoller::apply(const PerfSettings& settings)
{
    const bool sooner = settings.interval < settings_.interval || (settings.enabled && !settings_.enabled);
    settings_ = settings;
    transport_.set_perf_window(settings_.window);
    if (sooner) timer_.cancel(); // the wait restarts with the new interval
}

void PerfPoller::stop()
{
    stopped_ = true;
    timer_.cancel();
}

boost::asio::awaitable<void> PerfPoller::run()
{
    while (!stopped_) {
        timer_.expires_after(settings_.interval);
        boost::system::error_code ec;
        co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        if (stopped_) break;
        if (ec) continue; // a reload shortened the interval
        co_await sweep_once();
    }
}

boost::asio::awaitable<std::optional<PerfSweepStats>> PerfPoller::sweep_once()
{
    if (!settings_.enabled || !snapshot_ || sweeping_ || stopped_) co_return std::nullopt;
    if (gate_.standing_by()) co_return std::nullopt; // the master polls
    const SnapshotPtr snap = snapshot_; // this generation, whatever is published meanwhile
    sweeping_ = true;
    const auto started = std::chrono::steady_clock::now();
    SweepState st;
    st.now = unix_now();
    st.stats.sweep = totals_.sweeps + 1;
    st.stats.generation = snap->generation;
    std::vector<PerfNode> targets = perf_targets(*snap);
    st.stats.nodes = targets.size();
    // A few jobs more than the window keep it full while one job waits.
    const std::size_t width = std::size_t{settings_.window} * 2;
    co_await run_jobs(std::move(targets), width,
                      [this, &st](const PerfNode& t) { return sweep_node(t, st); });
    // Ports gone from the fabric leave the table.
    for (auto it = trackers_.begin(); it != trackers_.end();)
        it = st.seen.contains(it->first) ? std::next(it) : trackers_.erase(it);
    st.stats.ports = st.seen.size();
    st.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    st.stats.finished_at = unix_now();
    ++totals_.sweeps;
    totals_.mads += st.stats.mads;
    totals_.failures += st.stats.failures;
    last_ = st.stats;
    sweeping_ = false;
    const auto& s = st.stats;
    spdlog::info("counter sweep {} (generation {}): {} of {} ports read, {} MADs, {} failed, {:.3f} s, "
                 "{} cleared near saturation, {} reset by others",
                 s.sweep, s.generation, s.ports_read, s.ports, s.mads, s.failures, s.seconds, s.clears,
                 s.resets_seen);
    const health::CounterTable t = table();
    for (auto& o : observers_) o(t, s);
    co_return s;
}

boost::asio::awaitable<mad::SmpResponse> PerfPoller::request(mad::Smp mad, Lid lid, SweepState& st)
{
    auto r = co_await transport_.async_request(mad::SmpRequest{std::move(mad), lid}, boost::asio::use_awaitable);
    ++st.stats.mads;
    if (!r.ok()) ++st.stats.failures;
    co_return r;
}

void PerfPoller::note_failure(const health::PortId& id, SweepState& st)
{
    auto& c = trackers_[id].counters;
    ++c.failures;
    c.failure_history = (c.failure_history << 1) | 1;
    ++st.stats.ports_failed;
}

boost::asio::awaitable<void> PerfPoller::sweep_node(const PerfNode& target, SweepState& st)
{
    for (auto p : target.ports) st.seen.insert({target.node_guid, p});
    auto cached = class_port_info_.find(target.node_guid);
    if (cached == class_port_info_.end()) {
        auto r = co_await request(perf::make_class_port_info_get(), target.lid, st);
        std::optional<perf::ClassPortInfo> cpi;
        if (r.ok()) cpi = perf::decode_class_port_info(perf::attribute_data(r.smp));
        if (!cpi) {
            spdlog::debug("PerfMgt ClassPortInfo of {} (LID {}): {}", target.node_guid.str(), target.lid.value(),
                          r.ok() ? "short answer" : failure_text(r));
            for (auto p : target.ports) note_failure({target.node_guid, p}, st);
            co_return;
        }
        cached = class_port_info_.emplace(target.node_guid, *cpi).first;
    }
    const perf::ClassPortInfo cpi = cached->second; // a copy: the map may grow meanwhile
    for (auto p : target.ports) {
        const health::PortId id{target.node_guid, p};
        if (!co_await read_port(target, p, cpi, st)) note_failure(id, st);
    }
}

boost::asio::awaitable<bool> PerfPoller::read_port(const PerfNode& target, PortNum port,
                                                   const perf::ClassPortInfo& cpi, SweepState& st)
{
    auto r = co_await request(perf::make_port_counters_get(port), target.lid, st);
    std::optional<perf::PortCounters> pc;
    if (r.ok()) pc = perf::decode_port_counters(perf::attribute_data(r.smp));
    if (!pc) co_return false;
    std::optional<perf::PortCountersExtended> ext;
    if (cpi.extended_counters()) {
        auto rx = co_await request(perf::make_port_counters_extended_get(port), target.lid, st);
        if (rx.ok()) ext = perf::decode_port_counters_extended(perf::attribute_data(rx.smp));
        if (!ext) co_return false;
    }
    const health::CounterRead read = health::make_read(*pc, ext, cpi.xmit_wait());
    auto& tracker = trackers_[{target.node_guid, port}];
    if (health::absorb_read(tracker, read, st.now).reset_seen) ++st.stats.resets_seen;
    tracker.counters.failure_history <<= 1;
    ++st.stats.ports_read;
    if (const auto plan = health::plan_clear(read); plan.any()) {
        auto rc = co_await request(perf::make_port_counters_clear(port, plan.counter_select), target.lid, st);
        if (rc.ok()) {
            // The tracker may be gone only if the port left the table, which
            // happens after every job has finished: still here.
            health::note_cleared(trackers_[{target.node_guid, port}], plan);
            ++st.stats.clears;
        }
    }
    co_return true;
}

health::CounterTable PerfPoller::table() const
{
    health::CounterTable t;
    for (const auto& [id, tracker] : trackers_) t.emplace(id, tracker.counters);
    return t;
}

std::vector<health::PortHealth> PerfPoller::rows() const
{
    return perf_rows(std::make_shared<const health::CounterTable>(table()), snapshot_.get());
}

} // namespace ibsm::daemon
