// Registry of routing engines by name (see header).
#include "routing/registry.h"

#include "routing/dfsssp.h"
#include "routing/dfsssp_or_nue.h"
#include "routing/fattree/dmodk.h"
#include "routing/fattree/sftree.h"
#include "routing/minhop.h"
#include "routing/nue.h"
#include "routing/paths/path_stage.h"
#include "routing/updn.h"
#include "routing/sssp.h"

#include <stdexcept>

namespace ibsm::routing {

void Registry::add(std::string name, EngineFactory factory)
{
    if (name.empty()) throw std::invalid_argument("routing engine name must not be empty");
    if (!factory) throw std::invalid_argument("routing engine '" + name + "' has no factory");
    if (factories_.contains(name)) throw std::invalid_argument("routing engine '" + name + "' registered twice");
    factories_.emplace(std::move(name), std::move(factory));
}

bool Registry::contains(std::string_view name) const
{
    return factories_.find(name) != factories_.end();
}

std::unique_ptr<Engine> Registry::create(std::string_view name) const
{
    auto it = factories_.find(name);
    if (it == factories_.end()) return nullptr;
    return it->second();
}

std::vector<std::string> Registry::names() const
{
    std::vector<std::string> out;
    for (const auto& [name, factory] : factories_) out.push_back(name);
    return out;
}

Registry default_registry()
{
    Registry r;
    r.add("minhop", [] { return std::make_unique<MinHopEngine>(); });
    r.add("ftree", [] { return std::make_unique<fattree::FtreeEngine>(); });
    r.add("sftree", [] { return std::make_unique<fattree::SftreeEngine>(); });
    r.add("updn", [] { return std::make_unique<UpdnEngine>(); });
    r.add("sssp", [] { return std::make_unique<SsspEngine>(); });
    r.add("dfsssp", [] { return std::make_unique<DfssspEngine>(); });
    r.add("nue", [] { return std::make_unique<NueEngine>(); });
    r.add("dfsssp-or-nue", [] { return std::make_unique<DfssspOrNueEngine>(); });
    // Per-pair path routing + the LID-assignment stage (seed 002), on
    // common::worker_count's threads like every engine's parallel loops.
    auto names = paths::path_engine_names();
    names.push_back("updn-paths");
    for (const auto& name : names)
        r.add(name, [name] { return std::make_unique<paths::PathStageEngine>(paths::chain_path_engine(name, 0)); });
    return r;
}

} // namespace ibsm::routing
