// Live drains: a switch's links (all but the one kept for its own LID) or
// one link taken out of the routing for planned maintenance, through the
// isolation path the health policy uses (docs/operations.md, "Planned
// maintenance").
//
// Why here and not in the health monitor: a drain is the operator's plan,
// not a finding; it has its own file, its own events and no isolation
// budget, and the health rules never lift it. Both sets of links reach the
// bring-up as one (the composition root joins them), so a drain re-routes
// exactly like an isolation: the last fabric routed again without its
// links, only the LFT blocks that change sent.
//
// Data structures: the drain records (drain_store.h), the last snapshot
// (fabric, SM port, LIDs, the tables programmed), the sources the
// composition root hands in: the chain and options the bring-up routes with
// (for the dry run) and the health monitor's isolated links.
//
// Algorithm: a drain resolves its target on the last snapshot's fabric
// (whatif/targets.h), takes the links whatif::drain_links names, and checks
// over the fabric without them, every health isolation and every other
// drain which nodes the SM would no longer reach: any, and the drain is
// refused with their names. The dry run runs whatif::evaluate on the same
// reduction against the tables programmed now. After each new snapshot the
// drained switches' links are worked out again (a cable moved, a drained
// neighbour); a change is saved and handed on. All on the loop; a dry run
// routes and analyzes the fabric there (a second or two at 10 000 hosts).
#pragma once

#include "daemon/core/subnet.h"
#include "daemon/core/sweep_outcome.h"
#include "daemon/maint/drain_store.h"
#include "health/port_health.h"
#include "whatif/targets.h"
#include "whatif/whatif.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::daemon {

struct DrainResult {
    bool ok = false;
    std::string text;
    nlohmann::json whatif; // the dry run's prediction; null otherwise
};

class Drains {
public:
    using WallClock = std::function<double()>; // Unix seconds
    using EventSink = std::function<void(std::string_view kind, const nlohmann::json& fields)>;
    using ChangeSink = std::function<void(const std::string& reason)>;
    using SetupSource = std::function<whatif::Setup()>;
    using IsolatedSource = std::function<std::set<health::PortId>()>;

    explicit Drains(std::filesystem::path state_dir, WallClock clock = {});

    // drain / undrain / drain_refused events: kind, target, label, links, reason.
    void on_event(EventSink f) { events_ = std::move(f); }
    // The drained links changed (links() holds the new set).
    void on_change(ChangeSink f) { change_ = std::move(f); }
    // How the bring-up routes (chain, options) for the dry run; unset: ibsmd's defaults.
    void set_setup(SetupSource f) { setup_ = std::move(f); }
    // The links the health policy isolated, out of the routing before and after.
    void set_isolated(IsolatedSource f) { isolated_ = std::move(f); }

    // At start: the drains of the state directory (logged; a corrupt file is
    // logged with what to do and ignored).
    void load();
    // Every piece of work's outcome and the snapshot then current.
    void on_outcome(const SweepOutcome& o, const SnapshotPtr& snap);

    DrainResult drain(whatif::TargetKind kind, const std::string& target, bool dry_run);
    DrainResult undrain(whatif::TargetKind kind, const std::string& target);

    // Every link end a drain takes out of the routing.
    std::set<health::PortId> links() const;
    const std::vector<DrainRecord>& records() const { return drains_; }
    // Rows of drained links (either end) shown isolated, "drain: LABEL" first among their reasons.
    std::vector<health::PortHealth> mark(std::vector<health::PortHealth> rows) const;

private:
    struct Plan {
        DrainRecord record;
        std::vector<std::string> cut_off; // names; not empty: refused
        std::string error;                // the target cannot be resolved
    };
    Plan plan(whatif::TargetKind kind, const std::string& target, std::size_t skip) const;
    std::vector<std::string> cut_off_by(const std::set<health::PortId>& out, const std::set<health::PortId>& before) const;
    std::set<topology::NodeId> drained_switches(std::size_t skip) const;
    std::set<health::PortId> links_except(std::size_t skip) const;
    std::size_t find(whatif::TargetKind kind, const std::string& target) const;
    void save_and_announce(const std::string& reason);
    void publish(std::string_view kind, const DrainRecord& d, const std::string& reason) const;

    DrainStore store_;
    WallClock clock_;
    EventSink events_;
    ChangeSink change_;
    SetupSource setup_;
    IsolatedSource isolated_;
    SnapshotPtr snap_;
    std::vector<DrainRecord> drains_;
};

} // namespace ibsm::daemon
