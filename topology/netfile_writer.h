// Writer for the ibnetdiscover topology text format (see netfile_reader.h),
// laid out the way ibnetdiscover prints it so that ibsim, infiniband-diags
// users and our reader all accept it: per node the vendid/devid/sysimgguid
// and switchguid/caguid/rtguid lines, the header with description and (for
// switches) port-0 LID/LMC, then one line per cabled port with port GUIDs in
// parentheses and LIDs, LMC and link rate in the comment.
//
// Names are always GUID-form ("S-<guid>"); the GUID lines make ibsim present
// exactly the fabric's node GUIDs, and since ibsim gives CA port p the GUID
// node+p, port GUIDs survive a trip through ibsim only when they follow that
// rule (the generators make them so).
//
// A link whose two ends agree on a width other than 4x, or a speed other
// than SDR (up to QDR), also gets ibsim's "w=" / "s=" options so the
// simulator reproduces it.
#pragma once

#include "topology/fabric.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ibsm::topology {

struct WriteOptions {
    // Written first. ibsim attaches its first client (normally the SM) to the
    // first node of the file, so for a simulated fabric this is the SM host.
    // Otherwise nodes are written in NodeId order.
    std::optional<NodeId> first;
    // Extra lines for the "#" header block (without the leading "# ").
    std::vector<std::string> comments;
};

// A description character the format cannot carry ('"', line breaks, other
// control characters) is written as '_'.
void write_net(std::ostream& out, const Fabric& fabric, const WriteOptions& options = {});

// The first CA (in NodeId order) with at least one cabled port: where a
// generated fabric's SM should sit. nullopt if there is none.
std::optional<NodeId> first_cabled_ca(const Fabric& fabric);

} // namespace ibsm::topology
