// Values kept per port in a std::map<PortRef, T> (discovery's PortInfo),
// found again by (node, port) in a flat array.
//
// Why: whole-fabric passes (the port plan, the link checks) ask for the
// far end of every port: a search of a 165 888-entry map each at 27 648
// hosts, several per port. The index is built in one pass over the map,
// in its own order, and answers by two array reads.
//
// Data structures: the first slot of each node (its ports 0..N in a row)
// and a pointer per slot into the map, which must outlive the index and
// not lose the entries it points to.
#pragma once

#include "topology/fabric.h"

#include <cstddef>
#include <map>
#include <optional>
#include <vector>

namespace ibsm::topology {

template <class T>
class PortIndex {
public:
    PortIndex(const Fabric& f, const std::map<PortRef, T>& values)
    {
        first_.reserve(f.node_count() + 1);
        std::size_t n = 0;
        for (const auto& node : f.nodes()) {
            first_.push_back(n);
            n += node.ports.size();
        }
        first_.push_back(n);
        at_.assign(n, nullptr);
        for (const auto& [ref, v] : values)
            if (const auto i = slot(ref)) at_[*i] = &v;
    }
    // Null when the map holds nothing for `p`.
    const T* find(PortRef p) const
    {
        const auto i = slot(p);
        return i ? at_[*i] : nullptr;
    }

private:
    // None for a node or port the fabric does not have.
    std::optional<std::size_t> slot(PortRef p) const
    {
        if (p.node.value + 1 >= first_.size()) return std::nullopt;
        const std::size_t i = first_[p.node.value] + p.port.value();
        if (i >= first_[p.node.value + 1]) return std::nullopt;
        return i;
    }

    std::vector<std::size_t> first_;
    std::vector<const T*> at_;
};

} // namespace ibsm::topology
