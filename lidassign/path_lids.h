// LID blocks for per-pair path routing (seed 002 §2 end, "2^⌈lg k⌉ LIDs"):
// once each destination's paths are partitioned into k configurations
// (lidassign/path_configs.h), the destination port needs one LID per
// configuration, and because PortInfo:LMC masks the low bits of the DLID the
// block is 2^⌈lg k⌉ LIDs, base aligned to it (k = 5 -> 8 LIDs, LMC 3). The
// LMC field has 3 bits, so k <= 2^7 = 128. Switches keep one LID (their
// traffic to CAs uses the CAs' LIDs; switch destinations are routed by a
// destination-based tree).
//
// Why two orders, and the trade-off:
//   fixed-lmc     LMC fixed in the configuration (routing.lmc); LIDs are
//                 assigned before routing exactly as for any engine, so they
//                 never move when the fabric changes. Every CA port owns
//                 2^LMC LIDs whether it needs them or not, and a destination
//                 whose paths need more than 2^LMC configurations is refused
//                 (named), so the chain falls back.
//   colour-first  the configurations are computed first and each CA port
//                 gets exactly the LMC its k needs: the fewest LIDs (seed
//                 002's Tables 1-3 count this way). A re-route that changes
//                 k may move a port to a new aligned block: the port's
//                 hosts must then learn new DLIDs (SA PathRecords), and the
//                 move is reported as a note so the daemon logs it.
// Both persist the blocks in guid2lid (base..last, lidassign/guid2lid.h).
//
// Data structures: the destinations' needs (port, k); the LID allocation is
// lidassign/base_lids' allocator with a per-port LMC, so the previous map,
// the LIDs on the ports, reservations and the exhaustion rule are the same
// as for base LIDs.
//
// Pure: no I/O.
#pragma once

#include "lidassign/base_lids.h"
#include "lidassign/lid_map.h"
#include "topology/fabric.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ibsm::lidassign {

enum class LidOrder : std::uint8_t { fixed_lmc, colour_first };

const char* to_string(LidOrder o); // "fixed-lmc", "colour-first"
// Accepts "fixed-lmc", "colour-first" and "color-first".
std::optional<LidOrder> lid_order_from(std::string_view name);

inline constexpr std::uint16_t max_configs_per_port = 128; // LMC 7

// ⌈lg k⌉ for 1 <= k <= 128 (k = 0 counts as 1); k > 128 has no LMC.
std::optional<std::uint8_t> lmc_for(std::uint32_t configs);

// What one destination port needs: its number of configurations.
struct DestinationNeed {
    topology::PortRef dst;
    std::uint32_t configs = 1;
};

struct PathLids {
    LidMap lids;
    // Previous or present LIDs not kept; for a port whose block moved, the
    // note also says where to and why ("... moved to 0x0040: 4 LIDs for 3
    // configurations").
    std::vector<LidNote> notes;
    std::uint32_t ca_lids = 0;    // LIDs owned by CA/router ports (sum of 2^LMC)
    std::uint32_t total_lids = 0; // ... plus one per switch
};

struct PathLidRefusal {
    std::string reason;
};

using PathLidResult = std::variant<PathLids, PathLidRefusal>;

// fixed-lmc: `lids` were assigned before routing. Refuses, naming the first
// destinations (up to three) and the count, when a destination needs more
// configurations than its port has LIDs.
std::optional<PathLidRefusal> check_fixed_lmc(const topology::Fabric& fabric, const LidMap& lids,
                                              std::span<const DestinationNeed> needs);

// colour-first: every destination in `needs` gets LMC lmc_for(configs),
// other CA/router ports and switches as assign_base_lids gives them. `previous` is honoured
// where the block still fits (aligned to its new size, free). Refuses when a
// destination needs more than 128 configurations or the unicast LIDs
// 1..options.max_lid run out.
PathLidResult assign_path_lids(const topology::Fabric& fabric, const GuidLidMap& previous,
                               std::span<const DestinationNeed> needs, const BaseLidOptions& options);

// Sum of 2^LMC over the CA/router ports of `lids`, and the total with switches.
std::pair<std::uint32_t, std::uint32_t> count_lids(const topology::Fabric& fabric, const LidMap& lids);

// "0x0002c90300001234 port 1 ('h12')", for notes and refusals.
std::string describe_port(const topology::Fabric& fabric, topology::PortRef port);

} // namespace ibsm::lidassign
