// Partition membership (IBA 10.9) resolved against a fabric: which P_Keys
// each end port holds, the partitions that exist with their multicast
// groups, and the partition a path uses.
//
// Why: a port can only exchange packets with ports whose P_Key tables
// share a partition (at least one side a full member), IPoIB reads its
// interfaces from the table, and the SA must not hand out a PathRecord
// between ports that share none. One pure model answers all three, from
// the rules as OpenSM reads them (rules.h), so a partitions.conf means
// what it meant under OpenSM.
//
// Data structures: the effective rules (rules.h, effective_rules); per end
// port of the fabric its kind; per end port the resolved keys (P_Key with
// the membership bit) in OpenSM's order, and the key it wants at index 0
// (indx0); the partitions with at least one member, by P_Key, each with
// its name (that of its first statement), members counted and groups.
//
// Algorithm (osm_prtn_config.c, osm_prtn.c): per port, every member
// specifier of every rule that names it, in file order, sets the port's
// membership in that P_Key: limited, full, or (with allow_both_pkeys)
// both; without allow_both_pkeys `both` is full and the last specifier
// wins. Specifiers: a port GUID, ALL (every end port: CA and router ports,
// switch port 0), ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF (the SM's
// port). A partition no present port belongs to does not exist (OpenSM
// removes empty partitions). A port's keys come in OpenSM's order: by
// P_Key as OpenSM's map of network-order keys sorts them (the two bytes
// swapped), limited before full.
#pragma once

#include "mad/pkey_table.h"
#include "mad/types.h"
#include "partition/rules.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibsm::partition {

// IBA NodeInfo:NodeType of an end port's node.
enum class PortKind : std::uint8_t { ca = 1, switch_node = 2, router = 3 };

struct EndPort {
    Guid guid; // port GUID (a switch: its port 0, the node GUID)
    PortKind kind = PortKind::ca;
};

// A multicast group a partition creates (its IPoIB broadcast group, its
// `mgid=` lines), one per scope asked for.
struct PartitionGroup {
    mad::Gid128 mgid;     // scope nibble and, for IP groups, P_Key filled in
    std::uint16_t pkey = 0; // with the full bit, as the group carries it
    GroupFlags flags;
    std::uint8_t scope = 2;
    bool broadcast = false; // the IPoIB broadcast group
    bool operator==(const PartitionGroup&) const = default;
};

struct PartitionInfo {
    std::string name;
    std::uint16_t pkey = 0; // low 15 bits
    bool ipoib = false;
    std::uint8_t sl = 0;
    std::vector<PartitionGroup> groups;
    std::size_t full = 0;    // ports holding the full key
    std::size_t limited = 0; // ports holding the limited key
};

struct Settings {
    Guid sm_port;
    bool allow_both_pkeys = false; // OpenSM's allow_both_pkeys
};

class Partitions {
public:
    // The rules OpenSM runs without a partitions file, no port known.
    Partitions();
    // `rules` as effective_rules gives them; `ports` the fabric's end ports.
    Partitions(std::vector<Rule> rules, std::span<const EndPort> ports, Settings settings);

    // The P_Keys `port` holds (membership bit set for full members), in
    // OpenSM's order. A port not in the fabric gets what the rules give a CA.
    std::vector<std::uint16_t> keys_of(Guid port) const;
    // The key `port` wants at index 0 of its table (indx0), or 0 (then the
    // default partition's key goes there).
    std::uint16_t index0_key(Guid port) const;
    // The P_Key a path between `a` and `b` uses, or nullopt when they
    // share no partition with a full member on either side. With `asked`,
    // only that partition (its membership bit ignored) is considered.
    std::optional<std::uint16_t> path_pkey(Guid a, Guid b, std::optional<std::uint16_t> asked = {}) const;

    // The partitions that exist (at least one member), by P_Key.
    const std::vector<PartitionInfo>& partitions() const { return infos_; }
    const PartitionInfo* find(std::uint16_t pkey) const;
    const std::vector<Rule>& rules() const { return rules_; }
    const Settings& settings() const { return settings_; }

private:
    struct PortKeys {
        std::vector<std::uint16_t> keys;
        std::uint16_t index0 = 0;
    };
    PortKeys evaluate(Guid port, PortKind kind) const;

    std::vector<Rule> rules_;
    Settings settings_;
    std::vector<PartitionInfo> infos_;
    std::unordered_map<Guid, PortKeys> ports_;
};

// The partitions that differ between two resolutions, one line each for
// the log and the events feed: added, removed, and those whose members or
// groups changed (with counts of ports that joined, left, became full or
// limited).
struct PartitionChange {
    enum class Kind : std::uint8_t { added, removed, changed } kind = Kind::changed;
    std::uint16_t pkey = 0;
    std::string name;
    std::size_t joined = 0, left = 0, to_full = 0, to_limited = 0;
    bool groups_changed = false;
    std::string text() const;
};
std::vector<PartitionChange> changes(const Partitions& before, const Partitions& after,
                                     std::span<const EndPort> ports);

// The P_Key table blocks to write for `keys` on a port with `capacity`
// entries (0: not known, one block assumed): enough blocks for the keys,
// unused entries 0. Keys beyond the capacity do not fit; `dropped` counts them.
std::vector<mad::PKeyTable> table_blocks(std::span<const std::uint16_t> keys, std::size_t capacity,
                                         std::size_t* dropped = nullptr);

} // namespace ibsm::partition
