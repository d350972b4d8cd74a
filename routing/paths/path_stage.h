// A per-pair path engine as a link of the routing chain (routing/chain.h):
// paths (routing/paths/path_engine.h) -> configurations (seed 002 §4,
// lidassign/path_configs.h) -> LID blocks (lidassign/path_lids.h) -> LFTs
// for every LID (routing/path_tables.h), so the daemon, `ibsm route` and the
// verification gate treat the result like any other engine's tables.
//
// Why an adapter and not a new kind of chain: everything after routing
// (the gate, the LFT and port programmers, the dumps, fallback to the next
// engine on refusal) already works on RoutingTables; the two things a path
// routing adds travel with them: the per-pair DLID map
// (RoutingTables::pair_dlids) and, in the colour-first order, the LIDs the
// stage assigned (RoutingTables::lids), which the caller programs and
// persists instead of the ones it passed in.
//
// Switch destinations keep one LID and are routed by Up*/Down* (routing/
// updn.h) in the orientation the paths are legal under (the roots the
// engine chose, PairPaths::roots, else the same roots option): CA->switch
// routes are CA traffic too, and a second orientation in one VL can close a
// credit loop. The same tables are the fill-in for switches a configuration
// does not cross (path_tables.h). The result does not promise switch pairs
// (switch_to_switch stays false): the gate holds it to CA traffic and the
// switch->CA paths, the engine's own.
//
// Pure: no I/O.
#pragma once

#include "routing/engine.h"
#include "routing/paths/path_engine.h"

#include <memory>
#include <string>

namespace ibsm::routing::paths {

class PathStageEngine final : public Engine {
public:
    explicit PathStageEngine(std::unique_ptr<PathEngine> paths);
    std::string name() const override;
    Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                   const Options& options) const override;

private:
    std::unique_ptr<PathEngine> paths_;
};

// A destination-based engine's routes as per-pair paths (paths_from_tables.h),
// as a PathEngine: `name` = "<engine>-paths". Used for seed 002's "fully
// explicit" baseline and to run the LID stage over any engine's routes.
class TablesPathEngine final : public PathEngine {
public:
    TablesPathEngine(std::string name, std::unique_ptr<Engine> engine);
    std::string name() const override { return name_; }
    PathResult compute(const topology::Fabric& fabric, const Options& options) const override;

private:
    std::string name_;
    std::unique_ptr<Engine> engine_;
};

// The path engine behind a chain engine name: "pathsel", "shortest-widest"
// (path_engine.h) or "updn-paths"; nullptr for any other name. The
// registry builds its path stages from these (threads 0: common::
// worker_count's default).
std::unique_ptr<PathEngine> chain_path_engine(std::string_view name, unsigned threads = 1);

} // namespace ibsm::routing::paths
