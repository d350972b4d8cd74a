// What an operator names in `--without` and `ibsm drain`: a switch, a node
// or a link, by name or GUID, resolved against one fabric.
//
// Why pure and shared: `ibsm whatif`, `ibsm drain` and the daemon's drain
// must read "switch:spine-3" the same way and refuse the same typos.
//
// Data structures: Target is the text as written split into its kind and
// name; Resolved is the node or the link end it names in a Fabric.
//
// Algorithm: a name matches the node-name-map name, the NodeDescription or
// the node GUID ("0x..."); a link is "GUID/PORT" (node GUID, or a CA's port
// GUID, and a port number). A name that matches several nodes is an error
// listing them, never a guess.
#pragma once

#include "topology/fabric.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::whatif {

enum class TargetKind { switch_node, link, node };

std::string_view kind_name(TargetKind k); // "switch", "link", "node"

struct Target {
    TargetKind kind = TargetKind::switch_node;
    std::string name; // as written after "KIND:"
    bool operator==(const Target&) const = default;
};

// Throws std::invalid_argument with what is wrong ("expected switch:NAME|GUID,
// link:GUID/PORT or node:NAME|GUID, got 'spine'").
Target parse_target(std::string_view text);
// `kind` is "switch", "link" or "node" (the drain commands' first word).
Target make_target(std::string_view kind, std::string_view name);
std::string to_string(const Target& t); // "switch:spine-3"

struct Resolved {
    Target target;
    topology::NodeId node;      // switch / node: the node; link: the end named
    topology::PortRef link_end; // link only
    std::string label;          // "spine-3 (0x...)" or "leaf-1/3 - host-7/1"
};

// Throws std::invalid_argument naming the target and why (unknown name, a
// CA named as a switch, a port without a cable, several nodes of that name).
Resolved resolve(const topology::Fabric& f, const Target& t);

// "NAME/PORT" of a port: the display name (node-name-map, else description,
// else GUID) and the port number.
std::string port_label(const topology::Fabric& f, topology::PortRef p);
std::string node_label(const topology::Fabric& f, topology::NodeId n);

} // namespace ibsm::whatif
