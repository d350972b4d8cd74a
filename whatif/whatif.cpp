#include "whatif/whatif.h"

#include "lidassign/base_lids.h"
#include "routing/registry.h"
#include "topology/node_map_file.h"
#include "whatif/lft_diff.h"
#include "whatif/targets.h"

#include <chrono>
#include <cstdio>
#include <sstream>

namespace ibsm::whatif {

namespace {

using routing::analysis::PairClass;

struct Routed {
    Component part;
    std::shared_ptr<const routing::RoutingTables> tables;
    Side side;
};

// Scores `t` into `s`; with `keep`, the routing as `ibsm route` would write it.
std::shared_ptr<const Routing> score(Side& s, const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                     const routing::RoutingTables& t, const routing::analysis::Options& options,
                                     bool keep)
{
    topology::Fabric f = fabric;
    const auto& used = t.lids ? *t.lids : lids;
    lidassign::apply_lids(used, f);
    const auto rep = routing::analysis::analyze(f, t, options);
    if (rep.ebb) s.ebb = rep.ebb->ebb;
    s.max_load = rep.efi_all.max;
    if (rep.efi_all.max_link) s.max_link = routing::analysis::link_label(*rep.efi_all.max_link);
    s.ca_unreachable = rep.of(PairClass::ca_to_ca).unreachable + rep.of(PairClass::ca_to_ca).loops;
    if (!keep) return nullptr;
    return std::make_shared<const Routing>(Routing{std::move(f), used, t});
}

Routed route(const topology::Fabric& reduced, const lidassign::LidMap& lids, const std::vector<bool>& drop,
             const Setup& setup)
{
    Routed r{component(reduced, lids, drop), nullptr, {}};
    auto outcome = routing::run_chain(routing::default_registry(), setup.chain, r.part.fabric, r.part.lids, setup.route);
    r.side.refusals = outcome.refusals;
    if (!outcome.tables) return r;
    r.side.engine = outcome.engine();
    const auto* v = outcome.verdict();
    r.side.gate_passed = !outcome.degraded && v && v->passed();
    r.side.gate = r.side.gate_passed ? "passed" : "degraded: " + outcome.degraded_reason;
    r.tables = std::move(outcome.tables);
    return r;
}

// CA ports with LIDs outside `gone`: (ports, LIDs they own).
std::pair<std::uint64_t, std::uint64_t> ca_lids(const topology::Fabric& f, const lidassign::LidMap& lids,
                                                 const std::vector<bool>& gone)
{
    std::uint64_t ports = 0, count = 0;
    for (const auto& [port, l] : lids.entries()) {
        if (gone[port.node.value] || f.node(port.node).is_switch()) continue;
        ++ports;
        count += std::uint64_t{1} << l.lmc;
    }
    return {ports, count};
}

} // namespace

Result evaluate(const Input& in, const Reduction& change, const Setup& setup)
{
    const auto t0 = std::chrono::steady_clock::now();
    Result res;
    auto lap = t0;
    auto stage = [&](const char* name) {
        const auto now = std::chrono::steady_clock::now();
        for (auto& [n, sec] : res.stages)
            if (n == name) {
                sec += std::chrono::duration<double>(now - lap).count();
                lap = now;
                return;
            }
        res.stages.emplace_back(name, std::chrono::duration<double>(now - lap).count());
        lap = now;
    };
    res.taken = change.labels;
    const std::size_t n = in.fabric.node_count();

    Reduction now_out;
    now_out.links = in.isolated;
    const topology::Fabric base = reduce(in.fabric, now_out);
    const auto lost_before = cut_off(base, in.sm_node, {});
    std::vector<bool> drop_before(n, false);
    for (auto id : lost_before) drop_before[id.value] = true;

    Reduction after_out = change;
    after_out.links.insert(in.isolated.begin(), in.isolated.end());
    const topology::Fabric reduced = reduce(in.fabric, after_out);
    std::vector<bool> drop_after = drop_before;
    for (auto id : change.removed) drop_after[id.value] = true;
    for (auto id : cut_off(reduced, in.sm_node, change.removed))
        if (!drop_before[id.value]) {
            drop_after[id.value] = true;
            res.cut_off.push_back(node_label(in.fabric, id));
        }

    // Before: the tables programmed now, or the chain's on today's fabric.
    std::optional<Routed> routed_before;
    const topology::Fabric* before_fabric = &in.fabric;
    const routing::RoutingTables* before_tables = in.now;
    stage("reduce");
    if (before_tables) {
        res.before.engine = before_tables->engine;
        res.before.gate_passed = true;
        res.before.gate = "programmed";
        res.routing_before = score(res.before, in.fabric, in.lids, *before_tables, setup.analysis, setup.keep_routings);
    } else {
        routed_before = route(base, in.lids, drop_before, setup);
        res.before = routed_before->side;
        stage("route now");
        if (routed_before->tables) {
            before_fabric = &routed_before->part.fabric;
            before_tables = &*routed_before->tables;
            res.routing_before = score(res.before, routed_before->part.fabric, routed_before->part.lids, *before_tables,
                                       setup.analysis, setup.keep_routings);
        }
    }

    stage("analyze");
    auto after = route(reduced, in.lids, drop_after, setup);
    res.after = after.side;
    stage("route after");
    std::vector<bool> gone = drop_before;
    for (auto id : change.removed) gone[id.value] = true;
    const auto [hosts, host_lids] = ca_lids(in.fabric, in.lids, gone);
    const std::uint64_t pairs = hosts ? hosts * host_lids - host_lids : 0;
    if (after.tables) {
        res.routing_after =
            score(res.after, after.part.fabric, after.part.lids, *after.tables, setup.analysis, setup.keep_routings);
        // Pairs the new tables deliver: those of the component less its undelivered.
        const auto [part_hosts, part_lids] =
            ca_lids(after.part.fabric, after.part.lids, std::vector<bool>(after.part.fabric.node_count(), false));
        const std::uint64_t part_pairs = part_hosts ? part_hosts * part_lids - part_lids : 0;
        const std::uint64_t delivered = part_pairs - std::min(part_pairs, res.after.ca_unreachable);
        res.unreachable_pairs = pairs - std::min(pairs, delivered);
        stage("analyze");
        if (before_tables) {
            const auto d = diff_lfts(*before_fabric, *before_tables, after.part.fabric, *after.tables);
            res.lft_blocks_changed = d.blocks;
            res.switches_changed = d.switches;
        }
        stage("diff");
    } else {
        res.unreachable_pairs = pairs;
        res.failure = "no routing engine could route the fabric without " + std::to_string(change.labels.size()) +
                      " item(s)";
        for (const auto& r : after.side.refusals) res.failure += "; " + r.engine + ": " + r.reason;
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

namespace {

std::string fixed(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

nlohmann::json side_json(const Side& s)
{
    nlohmann::json refusals = nlohmann::json::array();
    for (const auto& r : s.refusals) refusals.push_back({{"engine", r.engine}, {"reason", r.reason}});
    return {{"engine", s.engine},         {"gate", s.gate},         {"gate_passed", s.gate_passed},
            {"ebb", s.ebb},               {"max_link_load", s.max_load}, {"max_link", s.max_link},
            {"refusals", std::move(refusals)}};
}

} // namespace

std::string to_text(const Result& r)
{
    std::ostringstream out;
    out << "without:            ";
    for (std::size_t i = 0; i < r.taken.size(); ++i) out << (i ? ", " : "") << r.taken[i];
    out << '\n';
    out << "cut off:            ";
    if (r.cut_off.empty()) out << "none";
    for (std::size_t i = 0; i < r.cut_off.size(); ++i) out << (i ? ", " : "") << r.cut_off[i];
    out << (r.cut_off.empty() ? "" : " (" + std::to_string(r.cut_off.size()) + ")") << '\n';
    out << "unreachable pairs:  " << r.unreachable_pairs << " (CA source port, destination LID)\n";
    for (const auto& f : r.after.refusals) out << "refused:            " << f.engine << ": " << f.reason << '\n';
    if (!r.failure.empty()) {
        out << "NOT ROUTABLE:       " << r.failure << '\n';
    } else {
        out << "engine:             " << r.after.engine << " (now " << r.before.engine << ")\n";
        out << "gate:               " << r.after.gate << '\n';
        out << "EBB:                " << fixed(r.before.ebb, 4) << " -> " << fixed(r.after.ebb, 4) << '\n';
        out << "max link load:      " << r.before.max_load << " -> " << r.after.max_load;
        if (!r.after.max_link.empty()) out << " (" << r.after.max_link << ")";
        out << '\n';
        out << "LFT blocks changed: " << r.lft_blocks_changed << " on " << r.switches_changed << " switch(es)\n";
    }
    out << "time:               " << fixed(r.seconds, 3) << " s";
    for (std::size_t i = 0; i < r.stages.size(); ++i)
        out << (i ? ", " : " (") << r.stages[i].first << ' ' << fixed(r.stages[i].second, 3) << " s"
            << (i + 1 == r.stages.size() ? ")" : "");
    out << '\n';
    return out.str();
}

nlohmann::json to_json(const Result& r)
{
    return {{"without", r.taken},
            {"cut_off", r.cut_off},
            {"unreachable_pairs", r.unreachable_pairs},
            {"engine", r.after.engine},
            {"gate", r.after.gate},
            {"gate_passed", r.after.gate_passed},
            {"routable", r.failure.empty()},
            {"failure", r.failure},
            {"ebb_before", r.before.ebb},
            {"ebb_after", r.after.ebb},
            {"max_link_load_before", r.before.max_load},
            {"max_link_load_after", r.after.max_load},
            {"lft_blocks_changed", r.lft_blocks_changed},
            {"switches_changed", r.switches_changed},
            {"seconds", r.seconds},
            {"stages", [&] {
                 nlohmann::json j = nlohmann::json::object();
                 for (const auto& [n, sec] : r.stages) j[n] = sec;
                 return j;
             }()},
            {"before", side_json(r.before)},
            {"after", side_json(r.after)}};
}

} // namespace ibsm::whatif
