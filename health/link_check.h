// Link checks: is each link running as fast, as wide and with the MTU and
// VLs its two ends could give it?
//
// Why: a cable that trained at 1x instead of 4x, or at SDR instead of HDR,
// carries traffic at a fraction of its bandwidth and nothing fails: the SM
// routes over it as over any other. Comparing what each end's PortInfo says
// is active with what both ends support and enable finds it in the PortInfo
// a heavy sweep has already read, without one more SMP.
//
// Data structures: the input is the fabric (cabling) and the PortInfo read
// per port; the output is health::LinkChecks (port_health.h), one LinkCheck
// per end of every link whose two ends are up and were read, keyed by
// PortId (node GUID, port).
//
// Algorithm: per link a-b, each end's widths and speeds are decoded by
// mad::port_speeds (mad/link_speed.h) under the capability masks that speak
// for it (a switch's port 0 ones for its external ports). The best the link
// could run at is the widest width and fastest speed in the intersection of
// both ends' supported-and-enabled sets; an end active below either is
// "downshifted". The MTU possible is the smaller MTUCap, the VLs possible
// the smaller VLCap capped by what the SM is configured to use; an end whose
// NeighborMTU or OperationalVLs is below them gets a finding but is not
// downshifted (the SM sets those, a retrain does not change them).
#pragma once

#include "health/port_health.h"
#include "mad/port_info.h"
#include "topology/fabric.h"

#include <cstdint>
#include <map>

namespace ibsm::health {

struct LinkCheckOptions {
    // The most VLs the SM programs (PortInfo OperationalVLs encoding: 1 =
    // VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14).
    std::uint8_t max_vls_code = 5;
};

LinkChecks check_links(const topology::Fabric& fabric, const std::map<topology::PortRef, mad::PortInfo>& port_info,
                       const LinkCheckOptions& options = {});

} // namespace ibsm::health
