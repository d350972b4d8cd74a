// OpenSM's guid2lid file (its persistent LID cache, /var/cache/opensm/guid2lid):
//   0x0002c90300001234 0x0004 0x0007
// port GUID, base LID, last LID (base + 2^LMC - 1); OpenSM writes a blank
// line after each entry. We read and write the same text so a cache can move
// between OpenSM and us. Pure: streams only.
#pragma once

#include "lidassign/base_lids.h"
#include "lidassign/lid_map.h"
#include "topology/fabric.h"

#include <iosfwd>
#include <stdexcept>
#include <string_view>

namespace ibsm::lidassign {

// Error with "source:line: what" in what().
class Guid2LidError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Entries sorted by port GUID, each followed by a blank line as OpenSM does.
// Ports with a zero GUID are skipped (nothing to key them by).
void write_guid2lid(std::ostream& out, const topology::Fabric& fabric, const LidMap& lids);

// Reads port GUID -> base LID. Blank lines and '#' comments are skipped.
// Throws Guid2LidError for malformed lines, a last LID below the base, LIDs
// outside 1..0xBFFF, or a GUID listed twice.
GuidLidMap read_guid2lid(std::istream& in, std::string_view source);

} // namespace ibsm::lidassign
