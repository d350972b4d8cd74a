// Which M_Key each port holds and which it should hold, and the key every
// SMP carries (mad/mkey_source.h), IBA 14.2.4.
//
// Why: with M_Key protection on, a port answers an SMP only if it carries
// the port's key (Sets always; Gets too at protection levels 2 and 3), and
// the key that counts is the target's: a switch checks its port 0's, a CA
// the port the SMP enters by. Callers (discovery, the programmers, the
// light sweeper) send to DR paths and LIDs; this book maps those to the
// port that checks and its key, so none of them handles keys.
//
// Data structures: `targets_` maps a DR path (its hop bytes) to the port
// that answers there (GUID, switch or not, the port number), learned from
// every NodeInfo answer (PortGUID is the checking port's GUID) and from a
// discovery result (learn()); `by_lid_` the same for LID-routed SMPs,
// learned from PortInfo answers of LID-carrying ports. `held_`: the key
// each port was last seen to hold: the M_Key of a PortInfo answer (a port
// shows it to a requester with the right key, and to anyone at level 0),
// or the key of an answered Set (a Set is always checked). `previous_`:
// the key ring before a rotation, until every port of the last sweep's
// fabric (`present_`) holds the new one: a port that left holds nothing
// open, and gets the old key tried again if it comes back mid-rotation.
//
// Algorithm: key_for() tries, per attempt, the distinct candidates in turn:
// the held key, the desired key (current ring), the previous ring's key.
// An unknown target (a port not yet read) gets 0: Gets pass any key at
// levels 0 and 1 (IBA 14.2.4.1), so discovery learns the port and its key
// before anything is Set. A Set to a keyed port that went unanswered under
// every candidate, or a Get at level 2+, is an incident: the port holds a
// key the SM does not know (another SM set it, or the secret changed); the
// handler (sweep/mkey_watch.h) waits out its lease and re-keys it.
#pragma once

#include "daemon/core/fabric_state.h"
#include "mad/mkey_source.h"
#include "mad/transport.h"
#include "mkey/keys.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibsm::daemon {

struct MkeySettings {
    bool enabled = false;
    mkey::KeyRing ring;
    std::uint8_t protect_bits = 1;     // 0..3
    std::uint16_t lease_period_s = 60; // 0: the lease never expires
    bool operator==(const MkeySettings&) const = default;
};

// A port that did not take the SM's key: a Set (or a Get at protection
// level 2 or 3) went unanswered under every key the SM could try.
struct MkeyIncident {
    Guid port;       // the checking port (a switch: its node GUID)
    bool is_switch = false;
    std::string where; // "DR path 0,1,3" or "LID 12"
    std::string what;  // "PortInfo Set"
};

struct MkeyCounters {
    std::uint64_t unanswered = 0; // incidents
    std::uint64_t keys_learned = 0;
    std::uint64_t retried_with_other_key = 0; // attempts beyond the first candidate
    std::uint64_t rotations_started = 0;
    std::uint64_t rotations_completed = 0;
};

// What the SM knows of one port's key (`ibsm mkey show`): never the secret.
struct MkeyView {
    std::optional<std::uint64_t> held; // unset: not read or Set yet
    std::uint64_t desired = 0;         // 0: M_Key off
    bool present = false;              // in the last sweep's fabric
};

class MkeyBook final : public mad::MkeySource {
public:
    using IncidentHandler = std::function<void(const MkeyIncident&)>;

    explicit MkeyBook(MkeySettings settings = {}) : settings_(std::move(settings)) {}

    const MkeySettings& settings() const { return settings_; }
    // A new configuration. A changed key ring starts a rotation: the old
    // ring's keys are still tried until settle() finds every known port
    // holding its new key.
    void set_settings(MkeySettings s);
    bool rotating() const { return previous_.has_value(); }
    // Ends a rotation once every port of the last sweep's fabric with a
    // known key holds its desired one; returns how many still do not.
    std::size_t settle();
    // Ports of the last sweep's fabric whose known key is not the desired one.
    std::size_t stale() const;
    MkeyView view(Guid port_guid) const;

    // The key the SM wants the port with this GUID to hold (0: M_Key off).
    std::uint64_t desired(Guid port_guid) const;
    std::optional<std::uint64_t> held(Guid port_guid) const;
    // Every port a sweep found, so SMPs over recomputed DR paths carry the
    // right key without a NodeInfo read first; they are the fabric a
    // rotation waits for.
    void learn(const DiscoveryResult& found);

    void set_incident_handler(IncidentHandler h) { incident_ = std::move(h); }
    const MkeyCounters& counters() const { return counters_; }

    // mad::MkeySource
    std::uint64_t key_for(const mad::Smp& smp, Lid dlid, unsigned attempt) override;
    void completed(const mad::SmpRequest& sent, const mad::SmpResponse& response) override;

private:
    struct Target {
        Guid guid;
        bool is_switch = false;
        std::uint8_t port = 0; // the port a CA is entered by
    };
    std::optional<Target> target(const mad::Smp& smp, Lid dlid) const;
    std::vector<std::uint64_t> candidates(Guid g) const;
    void hold(Guid g, std::uint64_t key);
    // M_Key off, no rotation, and no port seen holding a key: every
    // candidate list is {0}, so key_for() and a timeout need no lookup
    // (two hash lookups per SMP, a tenth of the SM's CPU in a 27 648-host
    // bring-up).
    bool keyless() const { return !settings_.enabled && !previous_ && keyed_ports_ == 0; }

    MkeySettings settings_;
    std::optional<mkey::KeyRing> previous_;
    std::unordered_map<std::string, Target> targets_;
    std::unordered_map<std::uint16_t, Target> by_lid_;
    std::unordered_map<std::uint64_t, std::uint64_t> held_;
    std::size_t keyed_ports_ = 0; // entries of held_ that are not 0
    std::set<Guid> present_;
    IncidentHandler incident_;
    MkeyCounters counters_;
};

} // namespace ibsm::daemon
