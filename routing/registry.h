// Registry: engine name -> factory. The daemon's config and the CLI name
// engines by string; the registry turns a name into an Engine instance.
// No globals: callers build a registry (default_registry() has every engine
// this build provides) and pass it where needed.
#pragma once

#include "routing/engine.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::routing {

using EngineFactory = std::function<std::unique_ptr<Engine>()>;

class Registry {
public:
    // Throws std::invalid_argument if the name is empty or already taken.
    void add(std::string name, EngineFactory factory);

    bool contains(std::string_view name) const;
    // A fresh engine; nullptr for an unknown name.
    std::unique_ptr<Engine> create(std::string_view name) const;
    // Registered names, sorted.
    std::vector<std::string> names() const;

private:
    std::map<std::string, EngineFactory, std::less<>> factories_;
};

// Every engine built into this binary (minhop, ftree, sftree, ...). Engines
// living in their own libraries are linked into the routing library for this.
Registry default_registry();

} // namespace ibsm::routing
