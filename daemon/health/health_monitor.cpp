#include "daemon/health/health_monitor.h"

#include "health/isolation.h"
#include "health/unhealthy.h"
#include "topology/node_map_file.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

namespace ibsm::daemon {

namespace {

using health::HealthState;
using health::PortId;
using health::Rule;

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string what_to_do(Rule r)
{
    switch (r) {
    case Rule::threshold:
    case Rule::flapping:
        return "check or replace the cable and both ports";
    case Rule::unresponsive: return "check the node (power, firmware, its management port)";
    case Rule::downshift: return "reseat or replace the cable; check the widths and speeds both ends enable";
    case Rule::reboot: return "check why the node restarts (power, firmware, its logs)";
    case Rule::noisy: return "check the port's cable and both ends (link integrity, buffer overrun, flow control traps)";
    case Rule::set_errors: return "check the node's firmware: it refuses what the SM sets";
    case Rule::illegal: return "check the node's firmware: its answers break IBA's formats";
    case Rule::operator_command: return "lift it with `ibsm port clear` once the link is fixed";
    }
    return {};
}

// Events that name a node or port without a rule of their own (isolations
// of other kinds, e.g. a drain) are not held to the isolation budget.
constexpr std::string_view budget_exempt_rule = "drain";

bool is_trap_129_to_131(std::uint16_t n)
{
    return n == mad::trap::local_link_integrity || n == mad::trap::excessive_buffer_overrun ||
           n == mad::trap::flow_control_watchdog;
}

// The log's words for what a decision did or would do.
std::string decision_label(const health::Decision& d, HealthState state)
{
    const bool nd = d.action == health::Action::no_discover;
    if (d.dry_run) {
        if (d.state == HealthState::isolation_refused) return nd ? "(dry run: no_discover refused)" : "(dry run: isolation refused)";
        if (d.over_budget) return "(dry run: report, isolation budget spent)";
        if (d.action == health::Action::isolate) return "(dry run: would isolate)";
        if (nd) return "(dry run: would not sweep past)";
        return "(dry run: report)";
    }
    if (d.over_budget) return "(report: isolation budget spent)";
    if (d.state == HealthState::isolation_refused) return nd ? "(no_discover refused)" : "(isolation refused)";
    if (state == HealthState::isolated) return "(report: isolation lifted by the operator)";
    return "(report)";
}

// The port a missing item's query was about: "PortInfo port N" at a node's
// path, or the node behind the last hop of the path.
std::optional<PortId> missing_port(const DiscoveryResult& found, const std::map<std::string, topology::NodeId>& at,
                                   const MissingItem& m)
{
    const auto& f = found.fabric;
    constexpr std::string_view portinfo = "PortInfo port ";
    if (m.what.rfind(portinfo, 0) == 0) {
        auto n = at.find(m.path.str());
        if (n == at.end()) return std::nullopt;
        const int port = std::atoi(m.what.c_str() + portinfo.size());
        if (port <= 0 || port > f.node(n->second).num_ports()) return std::nullopt;
        return PortId{f.node(n->second).guid, PortNum(static_cast<std::uint8_t>(port))};
    }
    if (m.path.hops() == 0) return std::nullopt;
    DrPath parent;
    for (std::size_t i = 0; i + 1 < m.path.hops(); ++i) parent = parent.extended(PortNum(m.path[i]));
    auto n = at.find(parent.str());
    if (n == at.end()) return std::nullopt;
    return PortId{f.node(n->second).guid, PortNum(m.path[m.path.hops() - 1])};
}

} // namespace

HealthMonitor::HealthMonitor(std::filesystem::path state_dir, health::HealthPolicy policy, WallClock clock)
    : store_(std::move(state_dir)), clock_(clock ? std::move(clock) : WallClock(unix_now))
{
    set_policy(policy);
}

void HealthMonitor::set_policy(const health::HealthPolicy& policy)
{
    policy_ = policy;
}

void HealthMonitor::load()
{
    auto loaded = store_.load();
    if (!loaded.error.empty()) spdlog::error("health: {}", loaded.error);
    isolations_ = std::move(loaded.isolations);
    no_discover_ = std::move(loaded.no_discover);
    for (const auto& [id, iso] : isolations_)
        spdlog::warn("health: link at {} port {} stays isolated ({}: {}), as {} says; `ibsm port clear {} {}` lifts it",
                     id.node.str(), id.port.value(), iso.rule, iso.reason, store_.file().string(), id.node.str(),
                     id.port.value());
    for (const auto& [guid, why] : no_discover_)
        spdlog::warn("health: discovery still does not go beyond {} ({}: {}), as {} says; `ibsm port clear {} PORT` "
                     "(any of its ports) lifts it",
                     guid.str(), why.rule, why.reason, store_.file().string(), guid.str());
    if (!isolations_.empty() && isolation_sink_) isolation_sink_(isolated(), "isolations kept from the last run");
    if (!no_discover_.empty() && no_discover_sink_) no_discover_sink_(no_discover(), "kept from the last run");
}

std::set<Guid> HealthMonitor::no_discover() const
{
    std::set<Guid> out;
    for (const auto& entry : no_discover_) out.insert(entry.first);
    return out;
}

std::set<PortId> HealthMonitor::isolated() const
{
    std::set<PortId> out;
    for (const auto& [id, iso] : isolations_) out.insert(id);
    return out;
}

void HealthMonitor::on_outcome(const SweepOutcome& o, const SnapshotPtr& snap)
{
    if (o.standby) return; // a standby SM acts on nothing
    const double now = clock_();
    for (const auto& p : o.changes.ports_down) downs_[p].push_back(now);
    for (auto it = downs_.begin(); it != downs_.end();) {
        auto& times = it->second;
        std::erase_if(times, [&](double t) { return now - t > policy_.flap_window_s; });
        it = times.empty() ? downs_.erase(it) : std::next(it);
    }
    health::prune(reboots_, now, policy_.reboot.window_s);
    health::prune(traps_, now, policy_.noisy.window_s);
    health::prune(set_errors_, now, policy_.set_errors.window_s);
    health::prune(illegal_, now, policy_.illegal.window_s);
    if (snap && snap->generation != (snap_ ? snap_->generation : 0)) {
        snap_ = snap;
        note_nodes(*snap_, now);
        std::map<std::string, topology::NodeId> at;
        const auto& found = snap_->found;
        for (std::uint32_t n = 0; n < found.paths.size(); ++n) at[found.paths[n].str()] = topology::NodeId{n};
        std::set<PortId> timed_out, asked;
        for (const auto& m : found.missing) {
            if (m.why.find("timeout") != std::string::npos)
                if (auto p = missing_port(found, at, m)) timed_out.insert(*p);
            // An answer discovery could not use: the node at the path (its
            // PortInfo) or the one behind the path's last port (its NodeInfo).
            if (m.why == "malformed answer" || m.why.find("out of range") != std::string::npos)
                if (auto p = missing_port(found, at, m)) {
                    const bool own = m.what.rfind("PortInfo port ", 0) == 0;
                    note_event(illegal_, own ? PortId{p->node, PortNum(0)} : *p, policy_.illegal.window_s);
                }
        }
        if (o.kind == SweepKind::heavy)
            for (const auto& l : found.fabric.links())
                for (auto end : {l.a, l.b}) asked.insert(health::port_id(found.fabric, end));
        note_timeouts(timed_out, asked);
    }
    evaluate();
}

void HealthMonitor::on_counters(const health::CounterTable& table)
{
    std::set<PortId> timed_out, asked;
    std::set<Guid> reset;
    for (const auto& [id, c] : table) {
        asked.insert(id);
        auto old = counters_->find(id);
        if (c.failures > (old == counters_->end() ? 0 : old->second.failures)) timed_out.insert(id);
        // Counters someone reset: a reboot, unless the node was already seen
        // leaving and coming back since the last read.
        if (old != counters_->end() && c.resets_seen > old->second.resets_seen) {
            auto r = reboots_.find(PortId{id.node, PortNum(0)});
            if (r == reboots_.end() || r->second.empty() || r->second.back() < old->second.last_read)
                reset.insert(id.node);
        }
    }
    for (auto g : reset) {
        spdlog::info("health: the counters of {} were reset: counted as a reboot", port_words(PortId{g, PortNum(0)}));
        note_event(reboots_, PortId{g, PortNum(0)}, policy_.reboot.window_s);
    }
    counters_ = std::make_shared<const health::CounterTable>(table);
    note_timeouts(timed_out, asked);
    evaluate();
}

void HealthMonitor::note_event(health::EventTimes& times, PortId key, double window_s)
{
    const double now = clock_();
    auto& t = times[key];
    std::erase_if(t, [&](double x) { return now - x > window_s; });
    t.push_back(now);
}

void HealthMonitor::note_nodes(const SubnetSnapshot& snap, double now)
{
    const auto& f = snap.found.fabric;
    std::set<Guid> here;
    for (std::uint32_t n = 0; n < f.node_count(); ++n) here.insert(f.node(topology::NodeId{n}).guid);
    for (auto g : present_)
        if (!here.count(g)) {
            departed_[g] = now;
            spdlog::info("health: {} left the fabric; back within {:.0f} s it counts as a reboot", g.str(),
                         policy_.reboot.window_s);
        }
    for (auto g : here) {
        auto it = departed_.find(g);
        if (it == departed_.end()) continue;
        // Left and came back: to the SM a reboot (or a cable pulled and put
        // back: the same to anything it can read).
        spdlog::info("health: {} is back {:.0f} s after it left the fabric: counted as a reboot",
                     port_words(PortId{g, PortNum(0)}), now - it->second);
        note_event(reboots_, PortId{g, PortNum(0)}, policy_.reboot.window_s);
        departed_.erase(it);
    }
    std::erase_if(departed_, [&](const auto& d) { return now - d.second > policy_.reboot.window_s; });
    present_ = std::move(here);
}

void HealthMonitor::on_notice(const mad::Notice& n)
{
    if (!n.is_generic || !is_trap_129_to_131(n.trap_number_or_device_id)) return;
    const auto* d = std::get_if<mad::PortErrorDetails>(&n.details);
    if (!d || !snap_) return;
    auto at = snap_->lids.lids.port_of(d->lid.value() ? d->lid : n.issuer_lid);
    if (!at) return; // a LID this SM did not give: nothing to name
    const auto& f = snap_->found.fabric;
    const PortId port{f.node(at->node).guid, d->port};
    note_event(traps_, port, policy_.noisy.window_s);
    // A storm of traps must not run the whole policy per trap: only once the
    // port passes the threshold, and then at most once a second.
    const double now = clock_();
    if (policy_.noisy.action == health::Action::off || traps_[port].size() <= policy_.noisy.count ||
        now - last_trap_evaluation_ < 1)
        return;
    last_trap_evaluation_ = now;
    evaluate();
}

std::optional<PortId> HealthMonitor::target_of(const mad::Smp& smp, Lid dlid) const
{
    if (!snap_) return std::nullopt;
    const auto& f = snap_->found.fabric;
    if (!smp.directed_route()) {
        auto p = snap_->lids.lids.port_of(dlid);
        if (!p) return std::nullopt;
        return PortId{f.node(p->node).guid, PortNum(0)};
    }
    if (f.node_count() == 0) return std::nullopt;
    topology::NodeId at = snap_->found.sm_port.node;
    // initial_path(1) is the port the SM's node sends from; each next one
    // is the port the SMP leaves the node it reached by.
    for (std::size_t i = 1; i <= smp.hop_count() && i < 64; ++i) {
        const auto& node = f.node(at);
        const auto p = smp.initial_path(i);
        if (p == 0 || p >= node.ports.size()) return std::nullopt;
        const auto& r = node.ports[p].remote;
        if (!r) return PortId{node.guid, PortNum(p)}; // the node behind this port
        at = r->node;
    }
    return PortId{f.node(at).guid, PortNum(0)};
}

void HealthMonitor::on_bad_status(const mad::SmpRequest& sent, const mad::SmpResponse& response)
{
    if (sent.smp.method() != static_cast<std::uint8_t>(mad::Method::set)) return;
    auto at = target_of(sent.smp, sent.dlid);
    if (!at) return;
    spdlog::debug("health: {} answered a Set of attribute 0x{:04x} with status 0x{:04x}", port_words(*at),
                  sent.smp.attr_id(), response.status);
    note_event(set_errors_, *at, policy_.set_errors.window_s);
    if (policy_.set_errors.action != health::Action::off && set_errors_[*at].size() >= policy_.set_errors.count)
        evaluate();
}

void HealthMonitor::on_malformed_answer(const mad::SmpRequest& sent, const std::string& what)
{
    auto at = target_of(sent.smp, sent.dlid);
    if (!at) return;
    spdlog::debug("health: {} sent a {}", port_words(*at), what);
    note_event(illegal_, *at, policy_.illegal.window_s);
    if (policy_.illegal.action != health::Action::off && illegal_[*at].size() >= policy_.illegal.count) evaluate();
}

void HealthMonitor::note_timeouts(const std::set<PortId>& timed_out, const std::set<PortId>& asked)
{
    // Only ports with a timeout in the window are kept: a port that answers
    // every sweep has no history worth its memory.
    for (const auto& p : timed_out) timeouts_[p]; // make room before the sweep's flags are added
    for (auto it = timeouts_.begin(); it != timeouts_.end();) {
        auto& h = it->second;
        if (timed_out.count(it->first))
            h.push_back(true);
        else if (asked.count(it->first))
            h.push_back(false);
        if (h.size() > policy_.unresponsive_sweeps) h.erase(h.begin(), h.end() - policy_.unresponsive_sweeps);
        it = std::find(h.begin(), h.end(), true) == h.end() ? timeouts_.erase(it) : std::next(it);
    }
}

void HealthMonitor::evaluate()
{
    const double now = clock_();
    const health::LinkChecks* links = snap_ ? &snap_->link_checks : nullptr;
    health::Inputs in{counters_.get(), links, &downs_, &timeouts_, now};
    in.reboots = &reboots_;
    in.traps = &traps_;
    in.set_errors = &set_errors_;
    in.illegal = &illegal_;
    auto findings = health::evaluate(policy_, in);
    std::map<PortId, PortState> next;
    for (const auto& [id, iso] : isolations_)
        next[id] = PortState{HealthState::isolated, {iso.rule + ": " + iso.reason}, iso.since};
    for (const auto& [guid, why] : no_discover_)
        next[PortId{guid, PortNum(0)}] =
            PortState{HealthState::reported, {"no_discover (" + why.rule + "): " + why.reason}, why.since};
    std::set<FindingKey> firing;
    std::set<std::pair<PortId, health::Rule>> still_spared;
    std::vector<std::pair<PortId, Isolation>> fresh;
    std::vector<std::pair<Guid, Isolation>> fresh_skips;
    if (snap_) {
        const auto& f = snap_->found.fabric;
        health::DecideOptions options;
        options.budget = policy_.isolation_budget;
        for (const auto& [id, iso] : isolations_)
            if (iso.rule == budget_exempt_rule) options.budget_exempt.insert(id);
        options.no_discover = no_discover();
        options.dry_run = policy_.dry_run;
        auto decided = health::decide(findings, f, snap_->found.sm_port, isolated(), options);
        for (const auto& d : decided.decisions) {
            const FindingKey key{d.port, d.rule, 0};
            firing.insert(key);
            auto& st = next[d.port];
            auto state = d.state;
            if (state == HealthState::isolated && spared_.count({d.port, d.rule})) {
                state = HealthState::reported; // the operator lifted it while this rule held
                still_spared.insert({d.port, d.rule});
            }
            if (st.state != HealthState::isolated && (st.state == HealthState::ok || state != HealthState::reported))
                st.state = state;
            st.reasons.push_back(std::string(health::rule_name(d.rule)) + ": " + d.reason);
            if (state == HealthState::isolated) {
                fresh.emplace_back(d.port, Isolation{std::string(health::rule_name(d.rule)), d.reason, now});
                continue;
            }
            if (!d.dry_run && d.action == health::Action::no_discover && decided.no_discover.count(d.port.node) &&
                !no_discover_.count(d.port.node)) {
                fresh_skips.emplace_back(d.port.node, Isolation{std::string(health::rule_name(d.rule)), d.reason, now});
                continue;
            }
            if (logged_.count(key)) continue;
            spdlog::warn("health: {}: {} {}: {}; {}", port_words(d.port), health::rule_name(d.rule),
                         decision_label(d, state), d.reason, what_to_do(d.rule));
            auto fields = port_fields(d.port);
            fields["rule"] = health::rule_name(d.rule);
            fields["reason"] = d.reason;
            std::string kind = "health_report";
            if (d.dry_run) {
                kind = "health_dry_run";
                fields["would"] = health::action_name(d.action);
                fields["refused"] = d.state == HealthState::isolation_refused;
                fields["over_budget"] = d.over_budget;
            } else if (d.over_budget) {
                kind = "isolation_over_budget";
            } else if (d.state == HealthState::isolation_refused) {
                kind = d.action == health::Action::no_discover ? "no_discover_refused" : "isolation_refused";
            }
            publish(kind, std::move(fields));
        }
    } else {
        // No fabric yet: reports only, no isolation can be checked.
        for (const auto& fd : findings) {
            auto& st = next[fd.port];
            if (st.state == HealthState::ok) st.state = HealthState::reported;
            st.reasons.push_back(std::string(health::rule_name(fd.rule)) + ": " + fd.reason);
        }
    }
    for (auto& [id, st] : next) {
        auto old = states_.find(id);
        st.since = old != states_.end() && old->second.state == st.state ? old->second.since : now;
    }
    states_ = std::move(next);
    logged_ = std::move(firing);
    if (snap_) spared_ = std::move(still_spared); // a rule that stopped holding may isolate again
    if (!fresh_skips.empty()) {
        std::string why;
        for (auto& [guid, skip] : fresh_skips) {
            const PortId node{guid, PortNum(0)};
            spdlog::warn("health: NOT SWEEPING PAST {}: {}: {}; discovery reads it but goes no further from the next "
                         "heavy sweep (its links stay in the routing, found from their other ends); {}; "
                         "`ibsm port clear {} PORT` (any of its ports) lifts it",
                         port_words(node), skip.rule, skip.reason,
                         what_to_do(health::rule_from_name(skip.rule).value_or(Rule::reboot)), guid.str());
            auto fields = port_fields(node);
            fields["rule"] = skip.rule;
            fields["reason"] = skip.reason;
            publish("no_discover", std::move(fields));
            why += (why.empty() ? "" : "; ") + port_words(node) + ": " + skip.rule;
            states_[node] = PortState{HealthState::reported, {"no_discover (" + skip.rule + "): " + skip.reason}, now};
            no_discover_[guid] = std::move(skip);
        }
        if (fresh.empty()) save_and_announce({}); // saves both; the isolations did not change
        announce_no_discover(why);
    }
    if (fresh.empty()) return;
    std::string why;
    for (auto& [id, iso] : fresh) {
        why += (why.empty() ? "" : "; ") + port_words(id) + ": " + iso.rule;
        apply_isolation(id, std::move(iso));
    }
    save_and_announce(why);
}

void HealthMonitor::apply_isolation(PortId port, Isolation iso)
{
    spdlog::warn("health: ISOLATING the link at {}: {}: {}; the routing leaves it out ({}); {}; "
                 "`ibsm port clear {} {}` puts it back",
                 port_words(port), iso.rule, iso.reason,
                 policy_.disable_port ? "its switch-side port is set DISABLED" : "the link stays up",
                 what_to_do(health::rule_from_name(iso.rule).value_or(Rule::flapping)), port.node.str(),
                 port.port.value());
    auto fields = port_fields(port);
    fields["rule"] = iso.rule;
    fields["reason"] = iso.reason;
    publish("isolation", std::move(fields));
    auto& st = states_[port];
    st.state = HealthState::isolated;
    st.reasons = {iso.rule + ": " + iso.reason};
    st.since = iso.since;
    isolations_[port] = std::move(iso);
}

void HealthMonitor::save_and_announce(const std::string& reason)
{
    try {
        store_.save(isolations_, no_discover_);
    } catch (const std::exception& e) {
        spdlog::error("health: isolations not saved ({}); they hold until the daemon stops: make {} writable",
                      e.what(), store_.file().parent_path().string());
    }
    if (isolation_sink_ && !reason.empty()) isolation_sink_(isolated(), reason);
}

void HealthMonitor::announce_no_discover(const std::string& reason)
{
    if (no_discover_sink_) no_discover_sink_(no_discover(), reason);
}

HealthCommandResult HealthMonitor::isolate(PortId port, std::string reason)
{
    if (!snap_) return {false, "no fabric configured yet: nothing to isolate"};
    const auto& f = snap_->found.fabric;
    if (!health::find_port(f, port))
        return {false, "unknown port: node " + port.node.str() + " port " + std::to_string(port.port.value())};
    if (health::link_isolated(f, isolated(), port)) return {true, port_words(port) + " is already isolated"};
    auto check = health::check_isolation(f, snap_->found.sm_port, isolated(), port);
    if (!check.allowed) {
        auto fields = port_fields(port);
        fields["rule"] = "operator";
        fields["reason"] = check.reason;
        publish("isolation_refused", std::move(fields));
        return {false, "refused: " + check.reason};
    }
    if (reason.empty()) reason = "isolated by the operator";
    apply_isolation(port, Isolation{"operator", reason, clock_()});
    save_and_announce(port_words(port) + ": operator");
    return {true, "isolated " + port_words(port) + "; the routing leaves it out from the next re-route"};
}

HealthCommandResult HealthMonitor::clear(PortId port)
{
    auto it = isolations_.find(port);
    if (it == isolations_.end() && snap_) {
        // The other end of an isolated link names it as well.
        const auto& f = snap_->found.fabric;
        if (auto p = health::find_port(f, port))
            if (auto r = f.remote(*p)) it = isolations_.find(health::port_id(f, *r));
    }
    if (it == isolations_.end()) {
        if (auto nd = no_discover_.find(port.node); nd != no_discover_.end()) {
            // The node's events so far have been acted on, as for an isolation.
            const PortId node{port.node, PortNum(0)};
            for (auto* times : {&reboots_, &set_errors_, &illegal_}) times->erase(node);
            std::erase_if(traps_, [&](const auto& t) { return t.first.node == port.node; });
            no_discover_.erase(nd);
            states_.erase(node);
            spdlog::warn("health: discovery goes beyond {} again (lifted by the operator) from the next heavy sweep",
                         port_words(node));
            publish("no_discover_cleared", port_fields(node));
            save_and_announce({});
            announce_no_discover(port_words(node) + ": cleared");
            return {true, "cleared no_discover of " + port_words(node) + "; discovery goes beyond it from the next "
                                                                          "heavy sweep"};
        }
        return {false, "node " + port.node.str() + " port " + std::to_string(port.port.value()) + " is not isolated"};
    }
    const PortId id = it->first;
    const auto rule = health::rule_from_name(it->second.rule);
    isolations_.erase(it);
    states_.erase(id);
    // What made the rule fire has been acted on: the counter deltas, link
    // downs and timeouts seen so far do not isolate the link again; new
    // ones after the clear may. A condition that lasts (a downshifted link)
    // is spared while it holds, and reported.
    std::vector<PortId> ends{id};
    if (snap_) {
        const auto& f = snap_->found.fabric;
        if (auto p = health::find_port(f, id))
            if (auto r = f.remote(*p)) ends.push_back(health::port_id(f, *r));
    }
    auto counters = std::make_shared<health::CounterTable>(*counters_); // the rows share the old one
    for (const auto& end : ends) {
        if (auto c = counters->find(end); c != counters->end())
            for (std::size_t i = 0; i < health::error_counter_count; ++i) c->second.delta[i] = 0;
        downs_.erase(end);
        timeouts_.erase(end);
        traps_.erase(end);
        illegal_.erase(end);
        for (auto* times : {&reboots_, &set_errors_, &illegal_}) times->erase(PortId{end.node, PortNum(0)});
        if (rule) spared_.insert({end, *rule});
    }
    counters_ = std::move(counters);
    spdlog::warn("health: isolation of {} lifted by the operator; the routing takes the link again", port_words(id));
    publish("isolation_cleared", port_fields(id));
    save_and_announce(port_words(id) + ": cleared");
    return {true, "cleared " + port_words(id) + "; the routing takes the link again from the next re-route"};
}

std::vector<health::PortHealth> HealthMonitor::rows() const
{
    // Rows in a vector by sorted port id, not a map moved into one: the map
    // node per port beside the returned rows was 15.6 MB of the daemon's
    // peak at 3 456 hosts (heaptrack), and grows with the ports.
    std::vector<PortId> ids;
    if (snap_) {
        const auto& f = snap_->found.fabric;
        ids.reserve(2 * f.links().size() + states_.size());
        for (const auto& l : f.links()) {
            ids.push_back(health::port_id(f, l.a));
            ids.push_back(health::port_id(f, l.b));
        }
    }
    for (const auto& entry : *counters_) ids.push_back(entry.first);
    for (const auto& entry : downs_) ids.push_back(entry.first);
    for (const auto& entry : states_) ids.push_back(entry.first);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<health::PortHealth> out(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) out[i].id = ids[i];
    auto row = [&](PortId id) -> health::PortHealth& {
        return out[static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin())];
    };
    const double now = clock_();
    if (snap_) {
        const auto& f = snap_->found.fabric;
        for (const auto& l : f.links())
            for (auto [end, other] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
                auto& r = row(health::port_id(f, end));
                r.node_desc = f.node(end.node).description;
                r.node_name = f.node(end.node).name;
                r.remote = health::port_id(f, other);
                const topology::PortRef lid_port =
                    f.node(end.node).is_switch() ? topology::PortRef{end.node, PortNum(0)} : end;
                if (auto lids = snap_->lids.lids.lids_of(lid_port)) r.lid = lids->base;
                if (auto c = snap_->link_checks.find(r.id); c != snap_->link_checks.end())
                    r.link = std::shared_ptr<const health::LinkCheck>(snap_, &c->second);
            }
    }
    for (const auto& [id, c] : *counters_) row(id).counters = std::shared_ptr<const health::PortCounters>(counters_, &c);
    for (const auto& [id, times] : downs_) row(id).link_downs_recent = health::downs_within(times, now, policy_.flap_window_s);
    for (const auto& [id, st] : states_) {
        auto& r = row(id);
        if (id.port.value() == 0 && snap_)
            if (auto n = snap_->found.fabric.find_node(id.node)) { // a node-wide row: reboot, no_discover, ...
                r.node_desc = snap_->found.fabric.node(*n).description;
                r.node_name = snap_->found.fabric.node(*n).name;
            }
        r.state = st.state;
        r.reasons = st.reasons;
        r.since = st.since;
    }
    health::sort_worst_first(out);
    return out;
}

std::string HealthMonitor::port_words(PortId port) const
{
    const bool whole_node = port.port.value() == 0; // the node as a whole
    std::string s = whole_node ? port.node.str() : port.node.str() + " port " + std::to_string(port.port.value());
    if (!snap_) return s;
    const auto& f = snap_->found.fabric;
    if (whole_node) {
        auto n = f.find_node(port.node);
        return n ? "'" + topology::display_name(f.node(*n)) + "' (" + s + ")" : s;
    }
    auto p = health::find_port(f, port);
    if (!p) return s;
    s = "'" + topology::display_name(f.node(p->node)) + "' (" + s + ")";
    if (auto r = f.remote(*p))
        s += " to '" + topology::display_name(f.node(r->node)) + "' (" + f.node(r->node).guid.str() + " port " +
             std::to_string(r->port.value()) + ")";
    return s;
}

nlohmann::json HealthMonitor::port_fields(PortId port) const
{
    nlohmann::json j{{"node_guid", port.node.str()}, {"port", port.port.value()}};
    if (!snap_) return j;
    const auto& f = snap_->found.fabric;
    if (port.port.value() == 0) {
        if (auto n = f.find_node(port.node)) {
            j["node_desc"] = f.node(*n).description;
            if (!f.node(*n).name.empty()) j["node_name"] = f.node(*n).name;
        }
        return j;
    }
    auto p = health::find_port(f, port);
    if (!p) return j;
    j["node_desc"] = f.node(p->node).description;
    if (!f.node(p->node).name.empty()) j["node_name"] = f.node(p->node).name;
    if (auto r = f.remote(*p)) {
        j["remote_guid"] = f.node(r->node).guid.str();
        j["remote_port"] = r->port.value();
    }
    return j;
}

void HealthMonitor::publish(std::string_view kind, nlohmann::json fields) const
{
    if (events_) events_(kind, fields);
}

} // namespace ibsm::daemon
