// The "node map" text format of infiniband-diags (rdma-core's
// util/node_name_map.c, parse_node_map), which OpenSM reads for its
// node-name-map and its GUID files (cn_guid_file, io_guid_file,
// guid_routing_order_file, root_guid_file): one entry per line,
//
//     0x0002c90300000001 "host-0001"   # a comment
//
// Why a reader of our own: the daemon and `ibsm` read a site's files as
// they are, so the grammar must be the one the site's tools already accept,
// and a bad line must be refused with its file and line, which the C reader
// does not say.
//
// Grammar (as parse_node_map): leading blanks skipped; an empty line or one
// starting with '#' is skipped; the line starts with a number in C's base-0
// form (0x hex, leading 0 octal, else decimal) that must be followed by a
// blank, '#' or the end of the line. For a node-name-map the rest of the
// line holds the name: leading '"' and '#' are skipped and the name runs up
// to the next '"' or '#' (strtok(p, "\"#")); a line with no name names
// nothing; the first line of a GUID wins. GUID files ignore the rest.
// Differences, all on lines the C reader accepts too: we strip blanks
// around a name (it keeps them: "0x1 # note" names node 0x1 " note" there,
// "note" here) and refuse GUID 0, which names no node.
//
// Pure: reads the stream it is handed.
#pragma once

#include "mad/types.h"
#include "topology/fabric.h"

#include <cstdint>
#include <istream>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibsm::topology {

// The GUIDs of a GUID file in file order, each once (a repeat is dropped,
// as OpenSM keeps one entry per GUID). Throws std::runtime_error
// "NAME:LINE: expected a GUID at the start of the line, got '...'".
std::vector<Guid> parse_guid_file(std::istream& in, const std::string& name);

// Node GUID -> the name operators know the node by.
class NodeNameMap {
public:
    // The mapped name, or null.
    const std::string* find(Guid node) const
    {
        auto it = names_.find(node.value());
        return it == names_.end() ? nullptr : &it->second;
    }
    std::size_t size() const { return names_.size(); }
    bool empty() const { return names_.empty(); }
    // Keeps the first name given for a GUID; returns whether it was new.
    bool add(Guid node, std::string name) { return names_.emplace(node.value(), std::move(name)).second; }

    bool operator==(const NodeNameMap&) const = default;

private:
    std::unordered_map<std::uint64_t, std::string> names_;
};

// Throws std::runtime_error naming NAME:LINE for a line that does not start
// with a GUID.
NodeNameMap parse_node_name_map(std::istream& in, const std::string& name);

// Sets every node's `name` from the map (cleared for a node it does not
// name, so a reloaded map takes names away too).
void apply_node_names(Fabric& fabric, const NodeNameMap& names);

// The name a node is shown by: its mapped name, else its NodeDescription.
inline const std::string& display_name(const Node& n) { return n.name.empty() ? n.description : n.name; }

} // namespace ibsm::topology
