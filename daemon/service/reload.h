// SIGHUP: which configuration the SM runs on after a reload, decided as a
// pure function with its reasons (like sm/sm_state.h), and the Reloader that
// reads the configuration again, decides, logs and applies the decision.
//
// Why: a reload must never take the SM down, nor half-apply. A
// configuration that cannot be read (bad YAML, an unreadable
// routing.root_guid_file or node_name_map, a GUID file with a bad line),
// or that changes a key only a restart applies
// (config/reload.h), is refused as a whole: the SM keeps running on the
// configuration it has and the log says why, one line per key. Apart from
// the reading and the wings, the rules are tested without a file or fabric.
//
// Data structures: Reread (the configuration read again with the bring-up
// settings it gives, or the error that stopped the reading); ReloadDecision
// (an action and its reasons); the Reloader holds the running configuration
// and the wings a reload reaches.
//
// Algorithm: unreadable -> keep the running configuration; not
// reload-compatible -> refuse, one reason per offending key; equal to the
// running one -> unchanged; else apply: log.level at once, routing.* at the
// next sweep's start (Bringup::reconfigure), sweep.* timers, dump.* files,
// sm.priority and sm.polling_*, perf.* (the counter poller), health.* (the
// policy's next evaluation), the files the configuration names (root and
// GUID files, node_name_map: read again on every reload, so a changed file
// under the same YAML is a change too), security.mkey (service/mkey_rotation.h: the
// secret file is read again on every reload, so a new secret under the same
// YAML is a change too; a file that cannot be read or is refused makes the
// whole reload unreadable and the keys in use stay), partitions,
// partitions_file, part_enforce and allow_both_pkeys at the next sweep (only
// the P_Key blocks that change are sent; a partitions_file that does not
// parse makes the reload unreadable). partitions_file is also checked at
// every heavy sweep (check_partitions_file). Whatever the decision, the heavy sweep the
// SIGHUP queues follows (the caller pushes it).
#pragma once

#include "config/config.h"
#include "daemon/health/health_monitor.h"
#include "daemon/health/perf_poller.h"
#include "daemon/publish/dump_writer.h"
#include "daemon/publish/status_reporter.h"
#include "daemon/service/options.h"
#include "daemon/sm/sm_election.h"
#include "daemon/sweep/bringup.h"
#include "daemon/sweep/sweep_scheduler.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::daemon {

// The configuration read again, or why it could not be.
struct Reread {
    std::optional<config::Config> config; // unset: `error` says why
    std::string error;
    BringupSettings bringup; // from `config`, the files it names read once
    MkeySettings mkeys;      // from `config`, security.mkey.secret_file read once
};

// The file and the command line again (settings.h: effective_config,
// bringup_settings); a configuration error is returned, not thrown.
Reread reread(const Options& opts);

enum class ReloadAction : std::uint8_t {
    unreadable, // keep the running configuration; reasons[0] is the error
    refuse,     // keep it: keys changed that need a restart, one reason each
    unchanged,  // nothing to apply
    apply,      // the new configuration replaces the running one
};

struct ReloadDecision {
    ReloadAction action = ReloadAction::unchanged;
    std::vector<std::string> reasons;
};

// `running_mkeys`: the key book's settings, when there is one; a reread
// whose settings differ is applied even with an equal configuration.
// `running_bringup`: the bring-up's settings in use, when known; a reread
// whose files (routing.root_guid_file, OpenSM's GUID files, node_name_map)
// hold something else is applied too, one reason per file.
ReloadDecision decide_reload(const config::Config& running, const Reread& next,
                             const MkeySettings* running_mkeys = nullptr,
                             const BringupSettings* running_bringup = nullptr);

class Reloader {
public:
    // The wings a reload reaches.
    struct Wings {
        Bringup& bringup;
        SweepScheduler& scheduler;
        DumpWriter& dumps;
        SmElection& election;
        HealthMonitor& health;
        PerfPoller* perf = nullptr; // perf.*: interval, window, on/off
        MkeyBook* mkeys = nullptr;  // security.mkey: a changed key ring is a rotation
        StatusReporter* status = nullptr; // metrics.port_series
    };

    Reloader(Options opts, config::Config running, Wings wings)
        : opts_(std::move(opts)), running_(std::move(running)), wings_(wings)
    {
    }

    // SIGHUP, on the loop: reads, decides, applies, and logs the decision.
    void reload();
    // At every heavy sweep (as OpenSM re-reads its partitions file): when
    // partitions_file's statements differ from the running ones, they are
    // applied alone, now; a file that does not parse keeps the running
    // partitions (said once per content of the file).
    void check_partitions_file();
    const config::Config& running() const { return running_; }

private:
    void apply(const config::Config& next, const BringupSettings& bringup, const MkeySettings& mkeys);

    Options opts_;
    config::Config running_;
    Wings wings_;
    std::string refused_partitions_; // the error last said for partitions_file
};

} // namespace ibsm::daemon
