// The isolated links, kept across restarts: isolated_links.json in the
// state directory.
//
// Why a file of its own: an isolation is the operator's (or the policy's)
// decision about a cable; a restart must not put a bad cable back into the
// routing. Only `clear` lifts it.
//
// Data structures: one entry per isolated link end as isolated (node GUID,
// port, the rule, the reason, since when), written as a JSON object
// {"version": 1, "isolated": [...]}, replaced atomically (core/atomic_file.h);
// the switches discovery does not go beyond (health rules' no_discover) in
// an optional "no_discover": [...] beside it, one entry per node GUID.
//
// Algorithm: load() reads the file if it exists; a file that cannot be read
// or parsed is moved aside (isolated_links.json.corrupt-TIME) and reported
// as the error, never thrown: the SM starts with no isolation rather than
// not at all. save() writes the whole set.
#pragma once

#include "health/port_health.h"

#include <filesystem>
#include <map>
#include <string>

namespace ibsm::daemon {

struct Isolation {
    std::string rule;   // "flapping", "threshold", "operator", ...
    std::string reason; // why, with the numbers
    double since = 0;   // Unix seconds
    bool operator==(const Isolation&) const = default;
};

using Isolations = std::map<health::PortId, Isolation>;
// Switches discovery does not go beyond, by node GUID: the rule that said
// so, why, since when.
using NoDiscover = std::map<Guid, Isolation>;

class IsolationStore {
public:
    explicit IsolationStore(std::filesystem::path state_dir);

    struct Loaded {
        Isolations isolations;
        NoDiscover no_discover;
        std::string error; // not empty: the file was unreadable (and moved aside when it could be)
    };
    Loaded load() const;
    // Throws std::runtime_error naming the file and the system error.
    void save(const Isolations& isolations, const NoDiscover& no_discover = {}) const;
    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_;
};

} // namespace ibsm::daemon
