// Reader for the ibnetdiscover topology text format, which ibsim also uses as
// its net file.
//
// Accepted input (one record per node, records separated by blank lines):
//   vendid=0x2c9 / devid=0xbd36 / sysimgguid=0x...     attributes of the next node
//   switchguid=0x...(...) / caguid=0x... / rtguid=0x...  GUID of the next node
//   Switch 36 "S-0002c90200403ba8"  # "desc" enhanced port 0 lid 1 lmc 0
//   Ca|Hca 2 "H-0002c9030007e4a0"   # "desc"
//   Rt 2 "R-..."                    # "desc"
//   [1](portguid) "remote"[2](portguid) w=4 s=2  # lid 3 lmc 0 "rdesc" lid 1 4xQDR
// plus blank lines and '#' comments. Free-form node names ("Switch1", as in
// ibsim's own examples) are accepted; such nodes get GUIDs the way ibsim
// numbers them: switches from 0x200000 upward, one GUID each; CAs from
// 0x100000 upward, num_ports+1 GUIDs each; a preceding switchguid=/caguid=
// line rebases the counter (ibsim's "switchguid+N" relative form too).
// A GUID line wins over a GUID-form name; a GUID-form name wins over the
// counter. Routers need one or the other (ibsim would give them GUID 0).
//
// CA/router port GUIDs come from "(guid)" annotations; ports without one get
// node GUID + port number, which is what ibsim presents.
//
// A link may be listed from one or both ends; both ends must agree. LIDs: a
// switch's header gives port 0 LID/LMC, a CA port line its own LID/LMC; the
// "lid N" a line shows for the remote end only fills in a LID the remote's
// own record did not give.
//
// Not supported (clear error): ibsim's include/do/module directives and
// '@' aliases.
#pragma once

#include "topology/fabric.h"

#include <cstddef>
#include <istream>
#include <stdexcept>
#include <string>

namespace ibsm::topology {

// A problem in a net file: `what()` is "file:line: message".
class ParseError : public std::runtime_error {
public:
    ParseError(std::string file, std::size_t line, std::string message);

    const std::string& file() const { return file_; }
    std::size_t line() const { return line_; }
    const std::string& message() const { return message_; }

private:
    std::string file_;
    std::size_t line_;
    std::string message_;
};

// Nodes appear in the Fabric in file order. `name` is used in messages only.
// Throws ParseError.
Fabric read_net(std::istream& in, const std::string& name);

} // namespace ibsm::topology
