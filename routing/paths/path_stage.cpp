// Path engine -> configurations -> LID blocks -> LFTs (see header).
#include "routing/paths/path_stage.h"

#include "common/parallel_for.h"
#include "lidassign/path_lids.h"
#include "routing/path_tables.h"
#include "routing/paths/paths_from_tables.h"
#include "routing/updn.h"

#include <algorithm>

namespace ibsm::routing::paths {

namespace {

struct Partitioned {
    std::vector<lidassign::DestinationConfigs> configs; // by destination
    std::vector<topology::PortRef> sources;             // every source port the paths name, sorted
};

// Every destination's configurations, a destination at a time on `threads`
// threads (0: common::worker_count's default; each visit makes its paths and
// drops them).
Partitioned partition_source(const topology::Fabric& fabric, const topology::PairPathSource& paths,
                             lidassign::ConfigHeuristic heuristic, unsigned threads)
{
    const auto n = paths.destinations.size();
    Partitioned out;
    out.configs.resize(n);
    const std::size_t keys = fabric.node_count() * 256; // (node, port)
    // Per worker, the (node, port) keys of the sources it met.
    const std::size_t workers = std::min<std::size_t>(common::worker_count(threads), std::max<std::size_t>(n, 1));
    std::vector<std::vector<bool>> seen(workers, std::vector<bool>(keys, false));
    common::parallel_for(n, threads, [&](std::size_t i, unsigned w) {
        paths.visit(i, [&](const topology::DestinationPaths& dest) {
            out.configs[i] = lidassign::partition_paths(dest, heuristic);
            for (const auto& p : dest.paths) {
                const std::size_t key = std::size_t{p.src.node.value} * 256 + p.src.port.value();
                if (key < keys) seen[w][key] = true;
            }
        });
    });
    for (std::size_t key = 0; key < keys; ++key)
        for (const auto& s : seen)
            if (s[key]) {
                out.sources.push_back(topology::PortRef{topology::NodeId{static_cast<std::uint32_t>(key / 256)},
                                                        PortNum(static_cast<std::uint8_t>(key % 256))});
                break;
            }
    std::sort(out.sources.begin(), out.sources.end());
    return out;
}

} // namespace

PathStageEngine::PathStageEngine(std::unique_ptr<PathEngine> paths) : paths_(std::move(paths)) {}

std::string PathStageEngine::name() const { return paths_->name(); }

Result PathStageEngine::compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                const Options& options) const
{
    const std::string me = name();
    // A destination's paths are made when a stage visits it: held whole,
    // the paths of every pair would be most of the memory.
    auto got = paths_->source(fabric, options);
    if (auto* r = std::get_if<Refusal>(&got)) return *r;
    auto& pp = std::get<topology::PairPathSource>(got);
    pp.engine = me;

    // Switch destinations (and the fill-in) in the paths' own orientation.
    Options base_options = options;
    if (!pp.roots.empty()) {
        base_options.root_guids.clear();
        for (const auto id : pp.roots) base_options.root_guids.push_back(fabric.node(id).guid);
    }
    auto base = UpdnEngine().compute(fabric, lids, base_options);
    if (auto* r = std::get_if<Refusal>(&base))
        return Refusal{me, "switch destinations (Up*/Down*): " + r->reason};
    const auto& base_tables = std::get<RoutingTables>(base);

    const unsigned threads = 0; // common::worker_count decides
    const auto [configs, sources] = partition_source(fabric, pp, options.lid_assignment, threads);
    std::vector<lidassign::DestinationNeed> needs;
    for (std::size_t d = 0; d < pp.destinations.size(); ++d)
        needs.push_back({pp.destinations[d], configs[d].count});

    std::shared_ptr<const lidassign::LidMap> assigned;
    std::vector<std::string> notes;
    if (options.lid_order == lidassign::LidOrder::fixed_lmc) {
        if (auto why = lidassign::check_fixed_lmc(fabric, lids, needs)) return Refusal{me, why->reason};
    } else {
        lidassign::BaseLidOptions lo;
        lo.max_lid = std::max<std::uint16_t>(1, options.max_lid);
        auto r = lidassign::assign_path_lids(fabric, options.previous_lids, needs, lo);
        if (auto* no = std::get_if<lidassign::PathLidRefusal>(&r)) return Refusal{me, "LID assignment: " + no->reason};
        auto& pl = std::get<lidassign::PathLids>(r);
        for (const auto& n : pl.notes) notes.push_back(n.text);
        assigned = std::make_shared<const lidassign::LidMap>(std::move(pl.lids));
    }
    const lidassign::LidMap& final_lids = assigned ? *assigned : lids;

    auto real = realise_paths(fabric, final_lids, pp, sources, configs, base_tables, lids, threads);
    if (auto* r = std::get_if<Refusal>(&real)) return *r;
    RoutingTables t = std::move(std::get<PathRealisation>(real).tables);
    t.engine = me;
    t.switch_to_switch = false;
    t.lids = assigned;
    std::uint32_t most = 0, several = 0;
    for (const auto& c : configs) {
        most = std::max<std::uint32_t>(most, c.count);
        if (c.count > 1) ++several;
    }
    const auto [ca, all] = lidassign::count_lids(fabric, final_lids);
    notes.push_back("LIDs: " + std::to_string(all) + " (" + std::to_string(ca) + " on CA ports, " +
                    std::to_string(pp.destinations.size()) + " destinations, " + std::to_string(several) +
                    " with more than one configuration, at most " + std::to_string(most) + "; " +
                    lidassign::to_string(options.lid_assignment) + ", " + lidassign::to_string(options.lid_order) +
                    ")");
    t.lid_notes = std::move(notes);
    return t;
}

std::unique_ptr<PathEngine> chain_path_engine(std::string_view name, unsigned threads)
{
    if (name == "updn-paths") return std::make_unique<TablesPathEngine>("updn-paths", std::make_unique<UpdnEngine>());
    return make_path_engine(name, threads);
}

TablesPathEngine::TablesPathEngine(std::string name, std::unique_ptr<Engine> engine)
    : name_(std::move(name)), engine_(std::move(engine))
{
}

PathResult TablesPathEngine::compute(const topology::Fabric& fabric, const Options& options) const
{
    // The walks do not depend on which LIDs the ports have: any assignment will do.
    lidassign::LidMap lids;
    try {
        lids = lidassign::assign_base_lids(fabric, {}, {}).lids;
    } catch (const lidassign::LidSpaceExhausted& e) {
        return Refusal{name_, e.what()};
    }
    auto r = engine_->compute(fabric, lids, options);
    if (auto* no = std::get_if<Refusal>(&r)) return Refusal{name_, no->reason};
    auto got = paths_from_tables(fabric, lids, std::get<RoutingTables>(r));
    if (auto* no = std::get_if<Refusal>(&got)) return Refusal{name_, no->reason};
    auto& pp = std::get<topology::PairPaths>(got);
    pp.engine = name_;
    return pp;
}

} // namespace ibsm::routing::paths
