// SL-to-VL mapping tables: identity over the VLs the routing engine needs
// (SL s -> VL s mod n; n = 1 for ftree/sftree/minhop, so every SL maps to
// VL0), set before any port is armed.
//
// Why: a port forwards an SL only over a VL its SL2VL table names; tables
// left by a previous SM, or a vendor default naming VLs above OperationalVLs,
// drop traffic.
//
// Scope, decided by what the SMP budget allows:
//  - CA ports advertising IsSLMappingSupported: Get, then Set only when the
//    table differs (one table per port);
//  - switches reporting OptimizedSLtoVLMappingProgramming: one Set per
//    switch with AllInputPorts|AllOutputPorts;
//  - other switches (ibsim's among them) would need one SMP per (input,
//    output) port pair, N^2 per switch, several times the whole bring-up:
//    they are counted and reported as not programmed, not guessed at.
// Confirmed tables are remembered per port GUID for the life of the
// process, so later sweeps send nothing for them.
#pragma once

#include "daemon/discovery.h"
#include "daemon/port_programmer.h"
#include "mad/sl2vl_table.h"
#include "mad/transport.h"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ibsm::daemon {

// SL s -> VL s mod n (n clamped to 1..15).
mad::Sl2VlTable identity_sl2vl(unsigned vls);

// Number of data VLs a PortInfo OperationalVLs/VLCap code stands for.
unsigned vl_count(std::uint8_t code);

struct VlReport {
    std::uint64_t gets = 0;
    std::uint64_t sets = 0;
    std::uint64_t failed = 0;
    std::uint64_t ports_ok = 0;                 // tables confirmed as desired
    std::uint64_t switches_not_programmed = 0;  // no optimized SL2VL programming
    std::vector<std::string> failures;
    bool complete() const { return failed == 0; }
};

class VlProgrammer {
public:
    explicit VlProgrammer(std::size_t width) : width_(width) {}

    boost::asio::awaitable<VlReport> program(mad::Transport& transport, const DiscoveryResult& found,
                                             const std::vector<PortPlanEntry>& plan, unsigned vls_needed);

private:
    std::size_t width_;
    std::map<std::pair<Guid, std::uint8_t>, mad::Sl2VlTable> confirmed_;
};

} // namespace ibsm::daemon
