// The DLID every source must use for every destination when routes are
// chosen per (source, destination) pair (seed 002): a destination with k
// configurations owns 2^⌈lg k⌉ LIDs, and the LID of a pair's configuration
// is the one whose LFT entries realise that pair's path
// (routing/path_tables.h). This mapping is what `ibsm route` writes to the
// path file (routing/path_file.h), what `ibsm analyze --paths` follows, and
// what SA PathRecord answers will hand to hosts.
//
// Why dense: 3 456 hosts and their switches are ~12 M pairs; one byte per
// pair (the offset from the destination's base LID) is 12 MB, a map of
// pairs gigabytes.
//
// Data structures: destinations (CA/router ports with their LID block) and
// sources (CA/router ports and switch port 0), each sorted by PortRef; one
// offset byte per (source, destination), `no_path` when the source has no
// path to that destination (itself, or not routed). Header-only: the
// analysis library reads it without linking the engines.
#pragma once

#include "mad/types.h"
#include "topology/fabric.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace ibsm::routing {

struct PairDlids {
    static constexpr std::uint8_t no_path = 0xFF;

    struct Destination {
        topology::PortRef port;
        Lid base;
        std::uint8_t lmc = 0;
    };

    std::vector<Destination> destinations; // sorted by port
    std::vector<topology::PortRef> sources; // sorted
    // [source index * destinations.size() + destination index]
    std::vector<std::uint8_t> offset;

    bool empty() const { return destinations.empty(); }
    std::uint8_t offset_of(std::size_t s, std::size_t d) const { return offset[s * destinations.size() + d]; }
    void set(std::size_t s, std::size_t d, std::uint8_t o) { offset[s * destinations.size() + d] = o; }

    // The DLID source `s` uses toward destination `d`, or none.
    std::optional<Lid> dlid(std::size_t s, std::size_t d) const
    {
        const std::uint8_t o = offset_of(s, d);
        if (o == no_path) return std::nullopt;
        return Lid(static_cast<std::uint16_t>(destinations[d].base.value() + o));
    }

    std::optional<std::size_t> source_index(topology::PortRef p) const
    {
        auto it = std::lower_bound(sources.begin(), sources.end(), p);
        if (it == sources.end() || *it != p) return std::nullopt;
        return static_cast<std::size_t>(it - sources.begin());
    }
    std::optional<std::size_t> destination_index(topology::PortRef p) const
    {
        auto it = std::lower_bound(destinations.begin(), destinations.end(), p,
                                   [](const Destination& d, topology::PortRef x) { return d.port < x; });
        if (it == destinations.end() || it->port != p) return std::nullopt;
        return static_cast<std::size_t>(it - destinations.begin());
    }
};

} // namespace ibsm::routing
