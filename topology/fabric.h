// The fabric graph every other module works on: nodes (switches, CAs,
// routers), their ports and the links between ports.
//
// Why: discovery builds it, net files read and write it, routing engines and
// LID assignment consume it; none of them should know how the others store
// things.
//
// Data structures: nodes live in one vector and are named by NodeId (their
// index, stable for the life of the Fabric; nodes are never removed). Each
// node owns a vector of Port indexed by port number (index 0 is the switch
// management port; for CAs/routers it exists but is unused). A link is stored
// on both ends as the peer's PortRef. Lookups by node GUID and port GUID are
// hash maps kept in step by the mutators.
#pragma once

#include "mad/types.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibsm::topology {

enum class NodeType : std::uint8_t { ca = 1, switch_node = 2, router = 3 };

// IBA PortInfo:PortState.
enum class PortState : std::uint8_t { unknown = 0, down = 1, init = 2, armed = 3, active = 4 };

struct NodeId {
    std::uint32_t value = 0;
    constexpr auto operator<=>(const NodeId&) const = default;
};

struct PortRef {
    NodeId node;
    PortNum port;
    constexpr auto operator<=>(const PortRef&) const = default;
};

struct Port {
    PortNum num;
    Guid guid;              // switches: every port carries the node GUID
    Lid lid;                // base LID (switch: only meaningful on port 0)
    std::uint8_t lmc = 0;
    PortState state = PortState::unknown;
    std::uint8_t phys_state = 0;        // IBA PortPhysicalState, 0 = unknown
    std::uint8_t link_width_active = 0; // IBA encoding (1=1x, 2=4x, 4=8x, 8=12x, 16=2x)
    std::uint8_t link_speed_active = 0; // IBA encoding (1=SDR, 2=DDR, 4=QDR)
    std::uint8_t link_speed_ext_active = 0;  // FDR=1, EDR=2, HDR=4, NDR=8; overrides link_speed_active
    std::uint8_t link_speed_ext_active2 = 0; // XDR=1; overrides both (mad/link_speed.h reads the three)
    std::uint8_t vl_cap = 0;
    std::uint8_t mtu_cap = 0;
    std::uint32_t capability_mask = 0;
    // The port answered a PortInfo query (or came from a file). A port that
    // exists but never answered stays false so callers can tell "missing".
    bool known = false;
    std::optional<PortRef> remote;
};

struct SwitchData {
    std::uint16_t linear_fdb_cap = 0;
    std::uint16_t linear_fdb_top = 0;
    std::uint8_t life_time_value = 0;
    bool enhanced_port0 = false;
};

struct Node {
    NodeType type = NodeType::ca;
    Guid guid;
    Guid system_guid;
    std::string description;
    // The name operators know the node by, from a node-name-map
    // (node_map_file.h; empty: none). Displays prefer it to `description`;
    // files other tools read (net files, dumps) keep the description.
    std::string name;
    std::uint32_t vendor_id = 0;
    std::uint16_t device_id = 0;
    std::uint32_t revision = 0;
    // NodeInfo PartitionCap: P_Key table entries of a CA port or switch
    // port 0 (0 = not known, e.g. read from a net file); the SA's
    // NodeRecord repeats it.
    std::uint16_t partition_cap = 0;
    std::optional<SwitchData> sw; // set for switches
    std::vector<Port> ports;      // size num_ports + 1; index = port number

    bool is_switch() const { return type == NodeType::switch_node; }
    std::uint8_t num_ports() const { return static_cast<std::uint8_t>(ports.size() - 1); }
    Port& port(PortNum p) { return ports.at(p.value()); }
    const Port& port(PortNum p) const { return ports.at(p.value()); }
};

// One cable, named by its two ends with a < b.
struct Link {
    PortRef a;
    PortRef b;
    constexpr auto operator<=>(const Link&) const = default;
};

class Fabric {
public:
    // Adds a node with `num_ports` external ports (ports 1..num_ports, plus
    // port 0). Port GUIDs default to the node GUID for switches and to zero
    // for CAs. Throws std::invalid_argument if the GUID is already present
    // (duplicate GUIDs are a fabric error callers must report, not merge).
    NodeId add_node(NodeType type, Guid guid, std::uint8_t num_ports, std::string description = {});

    // Records a port GUID (CA/router ports; a switch's ports share the node
    // GUID, so giving one another GUID throws std::invalid_argument, as does
    // a GUID already used by another port).
    void set_port_guid(PortRef p, Guid guid);

    // Cables a to b. Throws std::invalid_argument if either end is already
    // cabled to a different port, or if a == b.
    void connect(PortRef a, PortRef b);
    // Removes the cable on `p` (both ends). No-op if unconnected.
    void disconnect(PortRef p);

    std::size_t node_count() const { return nodes_.size(); }
    std::span<const Node> nodes() const { return nodes_; }
    const Node& node(NodeId id) const { return nodes_.at(id.value); }
    Node& node(NodeId id) { return nodes_.at(id.value); }
    const Port& port(PortRef p) const { return node(p.node).port(p.port); }
    Port& port(PortRef p) { return node(p.node).port(p.port); }
    std::optional<PortRef> remote(PortRef p) const { return port(p).remote; }

    std::optional<NodeId> find_node(Guid node_guid) const;
    std::optional<PortRef> find_port(Guid port_guid) const;

    // Every cable once, sorted.
    std::vector<Link> links() const;
    std::size_t link_count() const { return link_ends_ / 2; }
    std::size_t switch_count() const;
    std::size_t ca_count() const;

    // Range helper: NodeIds 0..n-1.
    std::vector<NodeId> node_ids() const;

private:
    std::vector<Node> nodes_;
    std::unordered_map<Guid, NodeId> by_node_guid_;
    std::unordered_map<Guid, PortRef> by_port_guid_;
    std::size_t link_ends_ = 0;
};

const char* to_string(NodeType t);
const char* to_string(PortState s);

} // namespace ibsm::topology
