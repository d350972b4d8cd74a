// The path-engine registry (see path_engine.h).
#include "routing/paths/path_engine.h"

#include "routing/paths/pathsel.h"
#include "routing/paths/shortest_widest.h"

#include <memory>

namespace ibsm::routing::paths {

PathSourceResult PathEngine::source(const topology::Fabric& fabric, const Options& options) const
{
    auto got = compute(fabric, options);
    if (auto* r = std::get_if<Refusal>(&got))
        return *r;
    return held_source(std::get<topology::PairPaths>(std::move(got)));
}

topology::PairPathSource held_source(topology::PairPaths paths)
{
    topology::PairPathSource out;
    out.engine = paths.engine;
    out.roots = paths.roots;
    for (const auto& d : paths.destinations)
        out.destinations.push_back(d.dst);
    auto held = std::make_shared<const topology::PairPaths>(std::move(paths));
    out.visit = [held](std::size_t i, const std::function<void(const topology::DestinationPaths&)>& fn) {
        fn(held->destinations[i]);
    };
    return out;
}

std::unique_ptr<PathEngine> make_path_engine(std::string_view name, unsigned threads)
{
    if (name == "pathsel") {
        PathselParams p;
        p.threads = threads;
        return std::make_unique<PathselEngine>(p);
    }
    if (name == "shortest-widest")
        return std::make_unique<ShortestWidestEngine>(threads);
    return nullptr;
}

std::vector<std::string> path_engine_names() { return {"pathsel", "shortest-widest"}; }

} // namespace ibsm::routing::paths
