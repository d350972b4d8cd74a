// The fallback chain: engines tried in configured order; the first one that
// produces tables wins, every refusal is kept for the report, and MinHop is
// the last resort unless the chain says no_fallback.
#pragma once

#include "routing/engine.h"
#include "routing/registry.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::routing {

inline constexpr const char* fallback_engine = "minhop";

struct ChainSpec {
    std::vector<std::string> engines; // e.g. {"sftree", "updn"}
    bool no_fallback = false;
};

struct ChainOutcome {
    std::optional<RoutingTables> tables; // empty when every engine refused
    std::vector<Refusal> refusals;       // in the order tried
    bool fell_back = false;              // tables came from the implicit MinHop

    // Name of the engine that produced the tables, or "" when none did.
    std::string engine() const { return tables ? tables->engine : std::string{}; }
};

// Throws std::invalid_argument for an empty chain, an unknown engine name
// (listing the known ones) or a name given twice.
void validate(const Registry& registry, const ChainSpec& spec);

// Runs the chain. An engine that throws is recorded as a refusal carrying
// the exception text, so one broken engine cannot stop the fallback.
// Validates the spec first (throws like validate()).
ChainOutcome run_chain(const Registry& registry, const ChainSpec& spec, const topology::Fabric& fabric,
                       const lidassign::LidMap& lids, const Options& options);

// "a,b,c" -> {"a","b","c"}; blanks around names are dropped; throws
// std::invalid_argument on an empty element.
std::vector<std::string> split_engine_list(std::string_view text);

} // namespace ibsm::routing
