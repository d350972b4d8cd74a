// How log lines and reports name a node or port: "0x0002c90300000001
// (host-0001) port 1", the GUID an operator greps for and the name that
// tells them which box it is: the node-name-map's (node_name_map:, set on
// the fabric by the bring-up), else the NodeDescription.
#pragma once

#include "topology/fabric.h"
#include "topology/node_map_file.h"

#include <string>

namespace ibsm::daemon {

inline std::string node_name(const topology::Fabric& f, topology::NodeId id)
{
    const auto& n = f.node(id);
    const std::string& shown = topology::display_name(n);
    return n.guid.str() + (shown.empty() ? "" : " (" + shown + ")");
}

inline std::string port_name(const topology::Fabric& f, topology::PortRef p)
{
    return node_name(f, p.node) + " port " + std::to_string(p.port.value());
}

} // namespace ibsm::daemon
