// The drains, kept across restarts: drains.json in the state directory.
//
// Why a file of its own (not isolated_links.json): a drain is the
// operator's plan for a switch or a link, lifted only by `ibsm undrain`;
// the health policy's isolations are findings about cables, with their own
// rules and budget. Both reach the routing through the same isolated links.
//
// Data structures: one record per drain (kind, the node and for a link the
// port named, the label, since when, the link ends taken out and the one
// kept for a drained switch's own LID), written as a JSON object
// {"version": 1, "drains": [...]}, replaced atomically (core/atomic_file.h).
// The link ends are stored so that the first sweep after a restart already
// routes around them, before the fabric is known again.
//
// Algorithm: load() reads the file if it exists; a file that cannot be read
// or parsed is moved aside (drains.json.corrupt-TIME) and reported as the
// error, never thrown: the SM starts with no drain rather than not at all.
#pragma once

#include "health/port_health.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::daemon {

struct DrainRecord {
    std::string kind;  // "switch" or "link"
    Guid node;         // the switch, or the link end named
    PortNum port;      // link: the port named; switch: 0
    std::string label; // "spine-3 (0x...)", "leaf-1/17 - spine-3/1"
    double since = 0;  // Unix seconds
    std::vector<health::PortId> links;  // link ends out of the routing
    std::optional<health::PortId> kept; // switch: the link kept for its own LID
    bool operator==(const DrainRecord&) const = default;
};

class DrainStore {
public:
    explicit DrainStore(std::filesystem::path state_dir);

    struct Loaded {
        std::vector<DrainRecord> drains;
        std::string error; // not empty: the file was unreadable (and moved aside when it could be)
    };
    Loaded load() const;
    // Throws std::runtime_error naming the file and the system error.
    void save(const std::vector<DrainRecord>& drains) const;
    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_;
};

} // namespace ibsm::daemon
