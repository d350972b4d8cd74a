// The SL file: the service level of every (source port, destination LID)
// pair as text, written beside lfts.dump by `ibsm route` and by ibsmd's state
// dump when the routing uses more than one SL, and read by `ibsm analyze` so
// its per-VL credit-loop check sees the VLs the routes really use.
//
// Why text, and this shape: operators read it next to dump_fts output, and a
// 3 456-host fabric has 17.6 M pairs; one line per source with one hex digit
// per destination LID keeps it to ~17 MB and one line per source port.
//
// Format (also written as the file's header):
//   # comments and blank lines are ignored
//   vls N                        the SLs map onto VLs 0..N-1 (SL = VL)
//   lids N                       the SL strings cover LIDs 0..N-1
//   <node GUID> <port> <SLs>     one line per source port: a CA/router port,
//                                or port 0 of a switch
// <SLs> is one hex digit (0-f) per destination LID, the first for LID 0;
// trailing zeros are dropped, and a source without a line, or a LID past the
// end of its string, has SL 0. Example: "0x0008f10400411a08 1 0001201" gives
// LID 3 SL 1, LID 4 SL 2, LID 6 SL 1 from port 1 of node 0x0008f10400411a08.
// Pure: streams only.
#pragma once

#include "routing/tables.h"
#include "topology/fabric.h"

#include <iosfwd>
#include <stdexcept>
#include <string_view>

namespace ibsm::routing {

// Writes tables.sl and tables.vls_used. Rows whose source is not in the
// fabric are skipped.
void write_sl_file(std::ostream& out, const topology::Fabric& fabric, const RoutingTables& tables);

// "source:line: what".
class SlFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SlFile {
    SlTable sl;
    std::uint8_t vls = 1;
};

// Throws SlFileError for a malformed line, a node GUID not in `fabric`, a
// port the node lacks, a source given twice, a string longer than `lids`, a
// missing `vls`/`lids` line or an SL not below `vls`.
SlFile read_sl_file(std::istream& in, std::string_view source, const topology::Fabric& fabric);

} // namespace ibsm::routing
