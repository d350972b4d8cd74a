// Per-pair path engines (seed 002 §5.1): instead of LFTs they return one
// explicit path per (source, destination) pair — topology::PairPaths — and
// the LID-assignment stage (lidassign/path_configs.h) then decides how many
// LIDs each destination needs so that LFTs can realise every chosen path.
//
// Why a second engine interface: a destination-based engine's result is only
// realisable with one LID per destination, which forbids exactly the freedom
// these engines exist for (two sources crossing one switch toward one
// destination by different ports).
//
// What every path engine returns (the contract tests check):
// - a path for every ordered pair of distinct CA/router ports that are
//   cabled to a switch and can reach each other, and for every (switch, CA
//   port) pair: src = PortRef{switch, port 0}, so switches get a DLID for
//   every CA too;
// - paths legal under Up*/Down* (no hop up after a hop down: deadlock-free on
//   one VL, switch-originated traffic included), loop-free, ending at the
//   switch cabled to the destination with the destination's port as the last
//   hop's out port;
// - destinations sorted by port, paths of a destination sorted by source.
// Equal input gives equal output, whatever the thread count.
#pragma once

#include "routing/engine.h"
#include "topology/pair_paths.h"

#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ibsm::routing::paths {

using PathResult = std::variant<topology::PairPaths, Refusal>;
using PathSourceResult = std::variant<topology::PairPathSource, Refusal>;

class PathEngine {
public:
    virtual ~PathEngine() = default;
    virtual std::string name() const = 0;
    virtual PathResult compute(const topology::Fabric& fabric, const Options& options) const = 0;
    // The same paths a destination at a time (the LID stage's input). This
    // default holds compute()'s result whole; an engine whose paths are
    // cheap to remake per destination overrides it to hold only what it
    // chose them from.
    virtual PathSourceResult source(const topology::Fabric& fabric, const Options& options) const;
};

// A whole PairPaths as a source (visits read it in place).
topology::PairPathSource held_source(topology::PairPaths paths);

// "pathsel" or "shortest-widest" with their default parameters; nullptr for
// another name. The independent parts run on `threads` threads (0:
// common::worker_count's default).
std::unique_ptr<PathEngine> make_path_engine(std::string_view name, unsigned threads = 1);
std::vector<std::string> path_engine_names();

} // namespace ibsm::routing::paths
