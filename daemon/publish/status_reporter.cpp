#include "daemon/publish/status_reporter.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ibsm::daemon {

namespace {

double wall_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

const char* trap_name(std::uint16_t number)
{
    switch (number) {
    case 64: return "GID in service";
    case 65: return "GID out of service";
    case 128: return "link state change";
    case 129: return "local link integrity";
    case 130: return "excessive buffer overrun";
    case 131: return "flow control update watchdog";
    case 144: return "local changes";
    case 145: return "system image GUID change";
    default: return nullptr;
    }
}

template <class... F>
struct Overloaded : F... {
    using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

} // namespace

std::string describe_event(const Event& e)
{
    return std::visit(Overloaded{
                          [](const TrapEvent& t) {
                              const auto n = t.notice.trap_number_or_device_id;
                              const char* name = trap_name(n);
                              return "trap " + std::to_string(n) + (name ? std::string(" (") + name + ")" : "") +
                                     " from LID " + std::to_string(t.notice.issuer_lid.value());
                          },
                          [](const PortStateChangeEvent& p) {
                              return "light sweep: PortStateChange on switch " + p.switch_guid.str();
                          },
                          [](const HeavySweepEvent& h) { return "heavy sweep requested: " + h.reason; },
                          [](const ReloadEvent&) { return std::string("SIGHUP: configuration reload"); },
                          [](const RetryEvent&) { return std::string("retry"); },
                          [](const ShutdownEvent&) { return std::string("shutdown"); },
                          [](const McastTablesEvent&) { return std::string("multicast tables to push"); },
                          [](const LightSweepEvent& l) { return "light sweep requested: " + l.reason; },
                          [](const IsolationEvent& i) { return "isolated links changed: " + i.reason; },
                      },
                      e);
}

namespace {

std::string outcome_word(const SweepOutcome& o)
{
    if (o.standby) return "standby";
    if (o.unchanged) return "unchanged";
    if (o.up) return o.degraded ? "degraded" : "up";
    return o.generation == 0 ? "failed" : "down";
}

} // namespace

std::string describe_outcome(const SweepOutcome& o)
{
    std::string s = o.kind == SweepKind::heavy ? "heavy sweep: " : "re-route: ";
    s += outcome_word(o);
    if (o.generation) s += ", generation " + std::to_string(o.generation);
    char buf[64];
    std::snprintf(buf, sizeof buf, ", %.3f s, %llu SMPs", o.seconds, static_cast<unsigned long long>(o.smps));
    s += buf;
    if (!o.up && !o.reason.empty()) s += " (" + o.reason + ")";
    return s;
}

StatusReporter::StatusReporter(boost::asio::any_io_executor ex, const mad::Transport& transport,
                               const SweepScheduler& scheduler, const TrapReceiver* traps, DumpWriter& dumps,
                               std::string sm_port_guid, std::size_t max_events)
    : transport_(transport), scheduler_(scheduler), traps_(traps), dumps_(dumps), max_events_(max_events),
      timer_(std::move(ex))
{
    status_.pid = static_cast<long>(::getpid());
    status_.started = wall_now();
    status_.sm_port_guid = std::move(sm_port_guid);
}

void StatusReporter::add_event(std::string text)
{
    events_.push_back(StatusEvent{wall_now(), std::move(text)});
    while (events_.size() > max_events_) events_.pop_front();
}

void StatusReporter::on_event(const Event& e)
{
    ports_dirty_ = true; // an isolation's event, a trap: the monitor's rows may change
    add_event(describe_event(e));
}

std::vector<health::PortHealth> notable_ports(const std::vector<health::PortHealth>& worst_first, std::size_t limit)
{
    std::vector<health::PortHealth> out;
    for (const auto& r : worst_first) {
        if (out.size() >= limit) break;
        bool notable = r.state != health::HealthState::ok || (r.link && r.link->downshifted);
        if (r.counters)
            for (std::size_t i = 0; i < health::error_counter_count && !notable; ++i)
                notable = r.counters->total[i] != 0;
        if (notable) out.push_back(r);
    }
    return out;
}

std::shared_ptr<const std::vector<health::PortHealth>> StatusReporter::port_rows() const
{
    // While a sweep runs, the rows of the last one stand: building them is
    // a pass over every port end on the loop (about 0.1 s at 27 648 hosts,
    // with a sort), which a status tick or a counter sweep's end would
    // otherwise put in the middle of a re-route. The sweep's outcome marks
    // them dirty and publishes, after the scheduler is no longer busy.
    if (ports_ && (!port_rows_ || (ports_dirty_ && !scheduler_.busy()))) {
        auto rows = ports_();
        health::sort_worst_first(rows);
        port_rows_ = std::make_shared<const std::vector<health::PortHealth>>(std::move(rows));
        ports_dirty_ = false;
        ++ports_version_;
    }
    return port_rows_;
}

void StatusReporter::on_outcome(const SweepOutcome& o, const SnapshotPtr& snap)
{
    add_event(describe_outcome(o));
    ports_dirty_ = true;
    auto& s = status_;
    if (o.standby)
        s.state = "standby";
    else
        s.state = snap ? to_string(snap->health) : "down";
    s.reason = o.standby || !snap ? o.reason : snap->reason;
    if (snap) {
        s.generation = snap->generation;
        s.engine = snap->engine;
        const auto& f = snap->found.fabric;
        s.nodes = f.node_count();
        s.switches = f.switch_count();
        s.cas = f.ca_count();
        s.links = f.link_count();
        s.sm_lid = snap->lids.sm_lid.value();
        s.lid_ports = snap->lids.lids.port_count();
        s.top_lid = snap->lids.lids.top().value();
        s.lmc = snap->lmc;
        std::vector<Guid> switches;
        switches.reserve(f.switch_count());
        for (const auto& n : f.nodes())
            if (n.is_switch()) switches.push_back(n.guid);
        selection_.switches = switch_guids(switches);
    }
    auto& l = s.last_sweep;
    l.kind = o.kind == SweepKind::heavy ? "heavy sweep" : "re-route";
    l.outcome = outcome_word(o);
    l.finished = wall_now();
    l.seconds = o.seconds;
    l.smps = o.smps;
    l.lft_blocks_sent = o.lft_blocks_sent;
    l.phases.clear();
    for (const auto& p : o.phases) {
        l.phases.push_back(StatusPhase{p.name, p.seconds, p.smps, p.detail});
        auto it = std::find_if(s.phase_totals.begin(), s.phase_totals.end(),
                               [&](const StatusPhaseTotal& t) { return t.name == p.name; });
        if (it == s.phase_totals.end()) it = s.phase_totals.insert(s.phase_totals.end(), StatusPhaseTotal{p.name, 0, 0});
        it->seconds += p.seconds;
        ++it->runs;
    }
    publish(true);
}

DaemonStatus StatusReporter::current() const
{
    DaemonStatus s = status_;
    const auto& st = scheduler_.stats();
    auto& c = s.counters;
    c.heavy_sweeps = st.heavy_sweeps;
    c.reroutes = st.reroutes;
    c.reroutes_unchanged = st.unchanged;
    c.light_sweeps = st.light_sweeps;
    c.resumes = st.resumes;
    c.sweep_failures = st.failures;
    c.events = st.events;
    const auto& t = transport_.counters();
    c.smps_sent = t.sent;
    c.smp_requests = t.requests;
    c.smp_timeouts = t.timeouts;
    c.smp_drops = t.drops;
    c.smp_retries = t.backoffs; // every resend waits out a backoff first
    c.smp_failed = t.failed;
    c.mads_unsolicited = t.unsolicited;
    c.mads_malformed = t.malformed;
    c.mads_unmatched = t.unmatched;
    if (traps_) {
        c.traps = traps_->total();
        for (const auto& [number, counts] : traps_->counts())
            s.traps.push_back(StatusTrap{number, counts.received, counts.repeats});
    }
    s.events.assign(events_.begin(), events_.end());
    if (perf_) s.perf = perf_();
    if (mkey_) s.mkey = mkey_();
    if (drains_) s.drains = drains_();
    if (ports_) {
        const auto rows = port_rows();
        s.perf.ports_monitored = rows->size();
        for (const auto& r : *rows) s.perf.ports_read += r.counters && r.counters->reads > 0;
        s.ports = notable_ports(*rows, state_ports);
    }
    if (const auto gen = dumps_.report_generation()) {
        s.report.path = dumps_.report_path().string();
        s.report.generation = gen;
        s.report.written = dumps_.report_written();
    }
    return s;
}

DaemonStatus StatusReporter::live() const
{
    DaemonStatus s = current();
    s.updated = wall_now();
    return s;
}

void StatusReporter::publish(bool force)
{
    DaemonStatus s = current();
    s.updated = 0;
    std::string key = to_state_json(s);
    if (!force && key == last_published_ && ports_version_ == ports_published_) return;
    last_published_ = std::move(key);
    s.updated = wall_now();
    std::string state = to_state_json(s);
    std::string activity = status_activity_text(s);
    ++published_;
    // While a sweep runs, a tick writes state.json and leaves metrics.prom
    // for the sweep's outcome: its rows stand still meanwhile (port_rows),
    // and rendering it (0.4 s of CPU at 27 648 hosts) took a core from the
    // re-route on a 2-core management node. The scrape endpoint renders
    // on demand, with the same counters, whenever it is asked.
    if (!force && scheduler_.busy()) {
        dumps_.publish_status(StatusFiles{std::move(state), {}, std::move(activity)});
        return;
    }
    ports_published_ = ports_version_;
    ++metrics_published_;
    // metrics.prom: the ports the selection keeps, formatted on the writer
    // thread from the shared rows themselves: a copy of them was 122 MB at
    // 27 648 hosts (docs/scale.md, "Memory").
    auto metrics = [s = std::move(s), rows = ports_ ? port_rows() : nullptr, sel = selection_] {
        return to_prometheus(s, sel, rows.get());
    };
    dumps_.publish_status(StatusFiles{std::move(state), std::move(metrics), std::move(activity)});
}

std::function<std::string()> StatusReporter::metrics_renderer() const
{
    DaemonStatus s = live();
    s.ports.clear(); // the rows go as the shared vector, not a copy made on the loop
    return [s = std::move(s), rows = ports_ ? port_rows() : nullptr, sel = selection_] {
        return to_prometheus(s, sel, rows.get());
    };
}

void StatusReporter::start(std::chrono::milliseconds period)
{
    period_ = period;
    running_ = true;
    publish(true); // "starting": the daemon is there before its first sweep ends
    arm();
}

void StatusReporter::arm()
{
    timer_.expires_after(period_);
    timer_.async_wait([this](const boost::system::error_code& ec) {
        if (ec || !running_) return;
        publish(false);
        arm();
    });
}

void StatusReporter::stop()
{
    running_ = false;
    timer_.cancel();
}

void StatusReporter::publish_stopped()
{
    stop();
    status_.state = "stopped";
    add_event("ibsmd stopped");
    publish(true);
}

} // namespace ibsm::daemon
