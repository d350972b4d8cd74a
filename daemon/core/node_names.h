// How log lines and reports name a node or port: "0x0002c90300000001
// (host-0001) port 1", the GUID an operator greps for and the description
// that tells them which box it is.
#pragma once

#include "topology/fabric.h"

#include <string>

namespace ibsm::daemon {

inline std::string node_name(const topology::Fabric& f, topology::NodeId id)
{
    const auto& n = f.node(id);
    return n.guid.str() + (n.description.empty() ? "" : " (" + n.description + ")");
}

inline std::string port_name(const topology::Fabric& f, topology::PortRef p)
{
    return node_name(f, p.node) + " port " + std::to_string(p.port.value());
}

} // namespace ibsm::daemon
