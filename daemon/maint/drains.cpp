#include "daemon/maint/drains.h"

#include "config/config.h"
#include "health/isolation.h"
#include "whatif/reduce.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>

namespace ibsm::daemon {

namespace {

constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string kind_text(whatif::TargetKind k) { return std::string(whatif::kind_name(k)); }

std::string joined(const std::vector<std::string>& names, std::size_t max = 20)
{
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < max; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > max) out += " and " + std::to_string(names.size() - max) + " more";
    return out;
}

std::set<topology::PortRef> refs(const topology::Fabric& f, const std::set<health::PortId>& ids)
{
    std::set<topology::PortRef> out;
    for (const auto& id : ids)
        if (auto p = health::find_port(f, id)) out.insert(*p);
    return out;
}

} // namespace

Drains::Drains(std::filesystem::path state_dir, WallClock clock)
    : store_(std::move(state_dir)), clock_(clock ? std::move(clock) : WallClock(unix_now))
{
}

void Drains::load()
{
    auto loaded = store_.load();
    if (!loaded.error.empty()) spdlog::error("drain: {}", loaded.error);
    drains_ = std::move(loaded.drains);
    for (const auto& d : drains_)
        spdlog::warn("drain: {} {} stays drained ({} link(s) out of the routing), as {} says; `ibsm undrain {} {}` "
                     "brings it back",
                     d.kind, d.label, d.links.size(), store_.file().string(), d.kind,
                     d.kind == "link" ? d.node.str() + "/" + std::to_string(d.port.value()) : d.node.str());
}

std::set<health::PortId> Drains::links() const { return links_except(none); }

std::set<health::PortId> Drains::links_except(std::size_t skip) const
{
    std::set<health::PortId> out;
    for (std::size_t i = 0; i < drains_.size(); ++i)
        if (i != skip) out.insert(drains_[i].links.begin(), drains_[i].links.end());
    return out;
}

std::set<topology::NodeId> Drains::drained_switches(std::size_t skip) const
{
    std::set<topology::NodeId> out;
    if (!snap_) return out;
    for (std::size_t i = 0; i < drains_.size(); ++i)
        if (i != skip && drains_[i].kind == "switch")
            if (auto n = snap_->found.fabric.find_node(drains_[i].node)) out.insert(*n);
    return out;
}

std::vector<std::string> Drains::cut_off_by(const std::set<health::PortId>& out,
                                            const std::set<health::PortId>& before) const
{
    const auto& f = snap_->found.fabric;
    const auto sm = snap_->found.sm_port.node;
    whatif::Reduction now, then;
    now.links = refs(f, before);
    then.links = refs(f, out);
    const auto lost_now = whatif::cut_off(whatif::reduce(f, now), sm, {});
    std::vector<std::string> names;
    for (auto id : whatif::cut_off(whatif::reduce(f, then), sm, {}))
        if (!std::binary_search(lost_now.begin(), lost_now.end(), id)) names.push_back(whatif::node_label(f, id));
    return names;
}

Drains::Plan Drains::plan(whatif::TargetKind kind, const std::string& target, std::size_t skip) const
{
    Plan p;
    if (!snap_) {
        p.error = "no fabric configured yet: nothing to drain";
        return p;
    }
    const auto& f = snap_->found.fabric;
    whatif::Resolved r;
    try {
        r = whatif::resolve(f, whatif::make_target(kind_text(kind), target));
    } catch (const std::invalid_argument& e) {
        p.error = e.what();
        return p;
    }
    auto& d = p.record;
    d.kind = kind_text(kind);
    d.node = f.node(r.node).guid;
    d.label = r.label;
    if (kind == whatif::TargetKind::link) {
        d.port = r.link_end.port;
        d.links.push_back(health::port_id(f, r.link_end));
    } else {
        const auto dl = whatif::drain_links(f, snap_->found.sm_port.node, r.node, drained_switches(skip));
        for (auto end : dl.isolated) d.links.push_back(health::port_id(f, end));
        if (dl.kept) d.kept = health::port_id(f, *dl.kept);
    }
    auto before = isolated_ ? isolated_() : std::set<health::PortId>{};
    const auto others = links_except(skip);
    before.insert(others.begin(), others.end());
    auto out = before;
    out.insert(d.links.begin(), d.links.end());
    p.cut_off = cut_off_by(out, before);
    return p;
}

std::size_t Drains::find(whatif::TargetKind kind, const std::string& target) const
{
    const std::string k = kind_text(kind);
    std::optional<health::PortId> named;
    std::optional<health::PortId> far;
    if (snap_) {
        const auto& f = snap_->found.fabric;
        try {
            auto r = whatif::resolve(f, whatif::make_target(k, target));
            if (kind == whatif::TargetKind::link) {
                named = health::port_id(f, r.link_end);
                if (auto o = f.remote(r.link_end)) far = health::port_id(f, *o);
            } else {
                named = health::PortId{f.node(r.node).guid, PortNum(0)};
            }
        } catch (const std::invalid_argument&) {
            // Not in the fabric now (a switch pulled): matched by the words below.
        }
    }
    for (std::size_t i = 0; i < drains_.size(); ++i) {
        const auto& d = drains_[i];
        if (d.kind != k) continue;
        const health::PortId id{d.node, d.port};
        if (named && (id == *named || (far && id == *far))) return i;
        if (kind == whatif::TargetKind::link && !d.links.empty() && named && d.links.front() == *named) return i;
        const std::string words = k == "link" ? d.node.str() + "/" + std::to_string(d.port.value()) : d.node.str();
        if (target == words || target == d.label || d.label.rfind(target + " (", 0) == 0) return i;
    }
    return none;
}

DrainResult Drains::drain(whatif::TargetKind kind, const std::string& target, bool dry_run)
{
    if (const auto i = find(kind, target); i != none && !dry_run)
        return {true, drains_[i].kind + " " + drains_[i].label + " is already drained", nullptr};
    auto p = plan(kind, target, none);
    if (!p.error.empty()) return {false, p.error, nullptr};
    const auto& d = p.record;
    const std::string refusal = "draining " + d.kind + " " + d.label + " would cut off " +
                                std::to_string(p.cut_off.size()) + " node(s) from the rest of the fabric: " +
                                joined(p.cut_off) + "; give them another link first";
    if (dry_run) {
        const auto& f = snap_->found.fabric;
        whatif::Setup setup = setup_ ? setup_() : whatif::Setup{};
        if (setup.chain.engines.empty()) setup.chain.engines = config::RoutingConfig{}.engines;
        setup.route.sm_port_guid = f.port(snap_->found.sm_port).guid;
        setup.analysis.run_shifts = false;
        setup.analysis.ebb.bisections = 100;
        auto kept_out = isolated_ ? isolated_() : std::set<health::PortId>{};
        const auto drained = links();
        kept_out.insert(drained.begin(), drained.end());
        whatif::Input in{f, snap_->lids.lids, snap_->found.sm_port.node, refs(f, kept_out), snap_->tables.get()};
        whatif::Reduction change;
        for (const auto& l : d.links)
            if (auto ref = health::find_port(f, l)) change.links.insert(*ref);
        change.labels.push_back("drain " + d.kind + " " + d.label + " (" + std::to_string(d.links.size()) +
                                " link(s)" + (d.kept ? ", one kept for its LID" : "") + ")");
        const auto result = whatif::evaluate(in, change, setup);
        auto j = whatif::to_json(result);
        j["refused"] = !p.cut_off.empty();
        std::string text = "dry run: nothing changed\n";
        if (!p.cut_off.empty()) text += "the drain would be REFUSED: " + refusal + "\n";
        return {true, text + whatif::to_text(result), std::move(j)};
    }
    if (!p.cut_off.empty()) {
        spdlog::warn("drain: {} refused: {}", d.label, refusal);
        publish("drain_refused", d, refusal);
        return {false, refusal, nullptr};
    }
    DrainRecord rec = d;
    rec.since = clock_();
    const std::string kept =
        rec.kept ? "; port " + std::to_string(rec.kept->port.value()) + " stays routed for its own LID" : "";
    spdlog::warn("drain: DRAINING {} {}: {} link(s) out of the routing{}; `ibsm undrain {} {}` brings it back",
                 rec.kind, rec.label, rec.links.size(), kept, rec.kind, target);
    drains_.push_back(rec);
    publish("drain", rec, "drained by the operator");
    save_and_announce("drain " + rec.kind + " " + rec.label);
    return {true,
            "drained " + rec.kind + " " + rec.label + ": " + std::to_string(rec.links.size()) +
                " link(s) out of the routing" + kept + "; the re-route sends only the LFT blocks that change",
            nullptr};
}

DrainResult Drains::undrain(whatif::TargetKind kind, const std::string& target)
{
    const auto i = find(kind, target);
    if (i == none) {
        std::string list;
        for (const auto& d : drains_) list += (list.empty() ? "" : ", ") + d.kind + " " + d.label;
        return {false, kind_text(kind) + " " + target + " is not drained (drained: " + (list.empty() ? "none" : list) + ")",
                nullptr};
    }
    const DrainRecord d = drains_[i];
    drains_.erase(drains_.begin() + static_cast<std::ptrdiff_t>(i));
    spdlog::warn("drain: {} {} undrained by the operator: its {} link(s) go back into the routing", d.kind, d.label,
                 d.links.size());
    publish("undrain", d, "undrained by the operator");
    save_and_announce("undrain " + d.kind + " " + d.label);
    return {true, "undrained " + d.kind + " " + d.label + ": its links go back into the routing with the re-route",
            nullptr};
}

void Drains::on_outcome(const SweepOutcome& o, const SnapshotPtr& snap)
{
    if (o.standby || !snap || (snap_ && snap->generation == snap_->generation)) return;
    snap_ = snap;
    // A cable moved or a drained neighbour changed which link a drained
    // switch keeps: its links are worked out again on the new fabric.
    bool changed = false;
    for (std::size_t i = 0; i < drains_.size(); ++i) {
        auto& d = drains_[i];
        if (d.kind != "switch") continue;
        auto p = plan(whatif::TargetKind::switch_node, d.node.str(), i);
        if (!p.error.empty()) continue; // not in the fabric now: its links stay as they were
        if (p.record.links == d.links && p.record.kept == d.kept) continue;
        spdlog::info("drain: switch {}: {} link(s) out of the routing now (was {})", d.label, p.record.links.size(),
                     d.links.size());
        d.links = std::move(p.record.links);
        d.kept = p.record.kept;
        changed = true;
    }
    if (changed) save_and_announce("drained links worked out again on generation " + std::to_string(snap->generation));
}

std::vector<health::PortHealth> Drains::mark(std::vector<health::PortHealth> rows) const
{
    if (drains_.empty()) return rows;
    std::map<health::PortId, std::string> label;
    for (const auto& d : drains_)
        for (const auto& l : d.links) {
            label[l] = d.kind + " " + d.label;
            if (snap_)
                if (auto p = health::find_port(snap_->found.fabric, l))
                    if (auto r = snap_->found.fabric.remote(*p))
                        label[health::port_id(snap_->found.fabric, *r)] = d.kind + " " + d.label;
        }
    for (auto& row : rows) {
        auto it = label.find(row.id);
        if (it == label.end()) continue;
        if (row.state != health::HealthState::isolated) row.since = 0;
        row.state = health::HealthState::isolated;
        row.reasons.insert(row.reasons.begin(), "drain: " + it->second);
    }
    health::sort_worst_first(rows);
    return rows;
}

void Drains::save_and_announce(const std::string& reason)
{
    try {
        store_.save(drains_);
    } catch (const std::exception& e) {
        spdlog::error("drain: drains not saved ({}); they hold until the daemon stops: make {} writable", e.what(),
                      store_.file().parent_path().string());
    }
    if (change_) change_(reason);
}

void Drains::publish(std::string_view kind, const DrainRecord& d, const std::string& reason) const
{
    if (!events_) return;
    events_(kind, nlohmann::json{{"kind", d.kind},
                                 {"node_guid", d.node.str()},
                                 {"port", d.port.value()},
                                 {"label", d.label},
                                 {"links", d.links.size()},
                                 {"reason", reason}});
}

} // namespace ibsm::daemon
