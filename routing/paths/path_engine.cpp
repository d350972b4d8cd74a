// The path-engine registry (see path_engine.h).
#include "routing/paths/path_engine.h"

#include "routing/paths/pathsel.h"
#include "routing/paths/shortest_widest.h"

namespace ibsm::routing::paths {

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
