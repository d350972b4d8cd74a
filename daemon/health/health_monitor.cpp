#include "daemon/health/health_monitor.h"

#include "health/isolation.h"
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
    case Rule::operator_command: return "lift it with `ibsm port clear` once the link is fixed";
    }
    return {};
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
    for (const auto& [id, iso] : isolations_)
        spdlog::warn("health: link at {} port {} stays isolated ({}: {}), as {} says; `ibsm port clear {} {}` lifts it",
                     id.node.str(), id.port.value(), iso.rule, iso.reason, store_.file().string(), id.node.str(),
                     id.port.value());
    if (!isolations_.empty() && isolation_sink_) isolation_sink_(isolated(), "isolations kept from the last run");
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
    if (snap && snap->generation != (snap_ ? snap_->generation : 0)) {
        snap_ = snap;
        std::map<std::string, topology::NodeId> at;
        const auto& found = snap_->found;
        for (std::uint32_t n = 0; n < found.paths.size(); ++n) at[found.paths[n].str()] = topology::NodeId{n};
        std::set<PortId> timed_out, asked;
        for (const auto& m : found.missing)
            if (m.why.find("timeout") != std::string::npos)
                if (auto p = missing_port(found, at, m)) timed_out.insert(*p);
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
    for (const auto& [id, c] : table) {
        asked.insert(id);
        auto old = counters_.find(id);
        if (c.failures > (old == counters_.end() ? 0 : old->second.failures)) timed_out.insert(id);
    }
    counters_ = table;
    note_timeouts(timed_out, asked);
    evaluate();
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
    auto findings = health::evaluate(policy_, health::Inputs{&counters_, links, &downs_, &timeouts_, now});
    std::map<PortId, PortState> next;
    for (const auto& [id, iso] : isolations_)
        next[id] = PortState{HealthState::isolated, {iso.rule + ": " + iso.reason}, iso.since};
    std::set<FindingKey> firing;
    std::set<std::pair<PortId, health::Rule>> still_spared;
    std::vector<std::pair<PortId, Isolation>> fresh;
    if (snap_) {
        const auto& f = snap_->found.fabric;
        auto decided = health::decide(findings, f, snap_->found.sm_port, isolated());
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
            if (logged_.count(key)) continue;
            spdlog::warn("health: {}: {} {}: {}; {}", port_words(d.port), health::rule_name(d.rule),
                         d.state == HealthState::isolation_refused ? "(isolation refused)"
                         : d.state == HealthState::isolated        ? "(report: isolation lifted by the operator)"
                                                                   : "(report)",
                         d.reason, what_to_do(d.rule));
            auto fields = port_fields(d.port);
            fields["rule"] = health::rule_name(d.rule);
            fields["reason"] = d.reason;
            publish(d.state == HealthState::isolation_refused ? "isolation_refused" : "health_report",
                    std::move(fields));
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
                 what_to_do(iso.rule == "operator" ? Rule::operator_command : Rule::flapping), port.node.str(),
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
        store_.save(isolations_);
    } catch (const std::exception& e) {
        spdlog::error("health: isolations not saved ({}); they hold until the daemon stops: make {} writable",
                      e.what(), store_.file().parent_path().string());
    }
    if (isolation_sink_) isolation_sink_(isolated(), reason);
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
    if (it == isolations_.end())
        return {false, "node " + port.node.str() + " port " + std::to_string(port.port.value()) + " is not isolated"};
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
    for (const auto& end : ends) {
        if (auto c = counters_.find(end); c != counters_.end())
            for (std::size_t i = 0; i < health::error_counter_count; ++i) c->second.delta[i] = 0;
        downs_.erase(end);
        timeouts_.erase(end);
        if (rule) spared_.insert({end, *rule});
    }
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
    for (const auto& entry : counters_) ids.push_back(entry.first);
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
                if (auto c = snap_->link_checks.find(r.id); c != snap_->link_checks.end()) r.link = c->second;
            }
    }
    for (const auto& [id, c] : counters_) row(id).counters = c;
    for (const auto& [id, times] : downs_) row(id).link_downs_recent = health::downs_within(times, now, policy_.flap_window_s);
    for (const auto& [id, st] : states_) {
        auto& r = row(id);
        r.state = st.state;
        r.reasons = st.reasons;
        r.since = st.since;
    }
    health::sort_worst_first(out);
    return out;
}

std::string HealthMonitor::port_words(PortId port) const
{
    std::string s = port.node.str() + " port " + std::to_string(port.port.value());
    if (!snap_) return s;
    const auto& f = snap_->found.fabric;
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
