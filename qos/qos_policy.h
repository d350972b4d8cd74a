// The QoS policy compiled against one fabric: which ports are in which
// group, and which level a request gets (IBA 15.2.5.16: the SA chooses the
// SL, MTU, rate and packet lifetime of a PathRecord within what the request
// allows).
//
// Why compiled: the SA answers tens of thousands of PathRecords a second; a
// glob on a node description per query would cost more than the path
// itself. Group membership is settled once per fabric generation.
//
// Data structures: per port GUID a 64-bit mask of the groups it is in
// (at most 64 groups, config/ checks); the rules in configuration order with
// their groups as bit indexes and their level as an index.
//
// Algorithm: a request matches a rule when every selector the rule has
// accepts it (service ID in a range, P_Key listed, QoS class in a range,
// source port in the source group, destination port in the destination
// group); the first matching rule gives the level. No rule: no level, the
// routing's SL stands. A rule with no selector matches every request. A
// request that leaves a value unsaid (no service ID, P_Key or QoS class)
// does not match a rule that constrains that value.
#pragma once

#include "config/qos_config.h"
#include "mad/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibsm::qos {

// What the policy needs to know about one end port of the fabric.
struct PortFacts {
    Guid port_guid;
    Guid node_guid;
    std::string node_desc;
    bool is_switch = false;               // switch port 0
    std::vector<std::uint16_t> pkeys;     // partitions the port holds (membership bit ignored)
};

// One request as the SA sees it: the ends are port GUIDs, the rest what the
// request constrains (absent: the request does not say).
struct Request {
    Guid source;
    Guid destination;
    std::optional<std::uint64_t> service_id;
    std::optional<std::uint16_t> pkey;
    std::optional<std::uint16_t> qos_class;
};

class QosPolicy {
public:
    QosPolicy() = default; // no policy: match() is always nullopt
    // `config` passed the schema (groups and levels named by rules exist).
    QosPolicy(const config::QosConfig& config, const std::vector<PortFacts>& ports);

    bool empty() const { return rules_.empty(); }
    // Index into levels() of the first matching rule's level.
    std::optional<std::size_t> match(const Request& request) const;
    const std::vector<config::QosLevel>& levels() const { return levels_; }

    // Groups `port` is in, bit i = config port_groups[i]; 0 for unknown ports.
    std::uint64_t groups_of(Guid port) const;
    // Index of a group by name.
    std::optional<std::size_t> group_index(const std::string& name) const;
    // Ports in group `index`, sorted (for logs and ibsm).
    std::vector<Guid> members(std::size_t index) const;

private:
    struct Rule {
        std::vector<config::QosRange<std::uint64_t>> service_ids;
        std::vector<std::uint16_t> pkeys; // membership bit cleared
        std::vector<config::QosRange<std::uint16_t>> qos_classes;
        std::uint64_t source_mask = 0;      // 0: any
        std::uint64_t destination_mask = 0; // 0: any
        std::size_t level = 0;
    };
    std::vector<std::string> group_names_;
    std::vector<config::QosLevel> levels_;
    std::vector<Rule> rules_;
    bool needs_groups_ = false; // some rule names a source or destination group
    std::unordered_map<Guid, std::uint64_t> groups_;
};

// Shell glob match (`*`, `?`, `[abc]`, `[a-z]`, `[!a]`) of a whole string.
bool glob_match(const std::string& pattern, const std::string& text);

} // namespace ibsm::qos
