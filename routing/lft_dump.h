// The text of infiniband-diags' `dump_fts` (unicast): writer and parser.
//
// Why: it is how operators look at forwarding tables, and the common ground
// for comparing SMs — `ibsm route` writes it, `ibsm analyze` reads it, both
// ours and dumps taken from a live fabric (OpenSM's tables included).
//
// Format (dump_fts, rdma-core), per switch:
//   Unicast lids [0x0-0x13] of switch Lid 1 guid 0x0000000000200000 (Switch1):
//     Lid  Out   Destination
//          Port     Info
//   0x0001 000 : (Switch portguid 0x0000000000200000: 'Switch1')
//   0x0004 003 : (Channel Adapter portguid 0x0000000000100004: 'Hca2')
//   0x0005 005 : (path #2 out of 4: portguid 0x0000000000100004)
//   18 valid lids dumped
// Only entries whose port exists on the switch are listed (`-a` lists all,
// unroutable ones as 255). A live dump names the switch by its DR path
// ("DR path slid 0; dlid 0; 0,3"); offline we name it by LID ("Lid 1").
//
// OpenSM's own opensm-lfts.dump (written to its dump_files_dir at log level
// 0x40, osm_dump.c) is read too, told apart per switch by its decimal range:
//   Unicast lids [0-14] of switch Lid 2 guid 0x0002c90201000000 ('leaf-1'):
//   0x0001 001 # Channel Adapter portguid 0x0002c90300000001: 'host-0000'
//   14 lids dumped
// no title lines, "# " before the destination, and the count line gives the
// top LID of the range, not the number of entries.
// Pure: std::ostream / std::istream only.
#pragma once

#include "lidassign/lid_map.h"
#include "routing/tables.h"
#include "topology/fabric.h"

#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::routing {

struct DumpFtsOptions {
    bool all = false; // dump_fts -a: list entries with invalid ports too
};

// Writes the tables of every switch in `tables` (NodeId order) as dump_fts
// would print them for a fabric programmed with them. Destinations are
// resolved through `lids` exactly as dump_fts resolves them (LMC paths as
// "path #k out of n").
void write_dump_fts(std::ostream& out, const topology::Fabric& fabric, const lidassign::LidMap& lids,
                    const RoutingTables& tables, const DumpFtsOptions& options = {});

// One switch block of a dump.
struct SwitchLftDump {
    Guid guid;
    std::string description;     // text inside the header's parentheses
    std::string address;         // "Lid 1" or "DR path slid 0; dlid 0; 0,3"
    std::optional<Lid> lid;      // parsed from address when it is "Lid N"
    Lid first;                   // header range [first-last]
    Lid last;
    Lft lft;                     // size last+1; unlisted entries no_route
    std::size_t listed = 0;      // entry lines read
    std::size_t line = 0;        // line number of the header
    bool opensm = false;         // OpenSM's opensm-lfts.dump format
};

// Error with "source:line: what" in what().
class LftDumpError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Parses unicast dump_fts output (with or without -a / -n), or OpenSM's
// opensm-lfts.dump (format detected per switch). Blank lines and
// diagnostics starting with "ibwarn:" are skipped; anything else that is not
// dump_fts text, entries outside the header range, duplicate LIDs and a
// count line that disagrees with the entries are errors. `source` names the
// input in messages.
std::vector<SwitchLftDump> parse_dump_fts(std::istream& in, std::string_view source);

// Turns parsed dumps into RoutingTables over `fabric` (switches matched by
// node GUID; linear_fdb_top = highest header range end). Throws LftDumpError
// for a switch GUID not in the fabric, a non-switch GUID, or a GUID dumped
// twice. Switches of the fabric missing from the dump get no LFT.
RoutingTables tables_from_dump(const std::vector<SwitchLftDump>& dumps, const topology::Fabric& fabric,
                               std::string_view source, std::string engine = "dump_fts");

} // namespace ibsm::routing
