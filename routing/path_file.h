// The path file: for every (source port, destination port) pair of a
// per-pair path routing, the DLID the source must use (routing/pair_dlids.h).
// `ibsm route` writes it as paths.txt beside lfts.dump and guid2lid, ibsmd's
// state dump writes it when the engine is a path engine, and `ibsm analyze
// --paths` reads it so the routes are followed on the DLID each pair really
// uses. It is also what SA PathRecord answers hand to hosts.
//
// Why this shape: ports are named by port GUID, as guid2lid names them (a
// switch's port GUID is its node GUID; CA port GUIDs are unique), so the
// file can be read against any discovery of the same fabric. A 3 456-host
// fabric has ~12 M pairs; one line per source with two hex digits per
// destination keeps it to ~25 MB, where a line per pair would be ~500 MB.
//
// Format (also written as the file's header):
//   # comments and blank lines are ignored
//   engine NAME                      the engine that chose the paths
//   destinations N                   before any dst line
//   dst <i> <port GUID> <base LID> <LMC>
//                                    N lines, i = 0..N-1 in order: each
//                                    destination port's block base..base+2^LMC-1
//   src <port GUID> <offsets>        one line per source port: two hex digits
//                                    per destination, in index order; the
//                                    DLID is base + offset, "--" = no path
//                                    (the source is the destination)
// Example: "dst 0 0x0002c90300000011 0x0010 2" and "src 0x0002c90300000012 03"
// say port ...12 sends to port ...11 with DLID 0x13.
//
// The reader takes no fabric (so it can be fuzzed alone) and throws
// PathFileError "source:line: what" for anything malformed; resolving the
// GUIDs against a fabric is a second step.
#pragma once

#include "routing/pair_dlids.h"
#include "topology/fabric.h"
#include "topology/pair_paths.h"

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::routing {

class PathFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct PathFile {
    struct Destination {
        Guid port_guid;
        Lid base;
        std::uint8_t lmc = 0;
    };
    struct Source {
        Guid port_guid;
        std::vector<std::uint8_t> offset; // per destination; PairDlids::no_path for "--"
    };
    std::string engine;
    std::vector<Destination> destinations;
    std::vector<Source> sources;
};

// Ports without a GUID are left out (nothing to name them by).
void write_path_file(std::ostream& out, const topology::Fabric& fabric, const PairDlids& dlids,
                     const std::string& engine);

// The paths a path engine selected, one line per pair, for tests and for
// operators comparing with ibtracert (`ibsm route --selected-paths`):
//   <src port GUID> <dst port GUID> <switch GUID>:<out port> ...
// from the source's first switch to the one cabled to the destination (a
// switch source is named by its node GUID). Write-only.
void write_selected_paths(std::ostream& out, const topology::Fabric& fabric, const topology::PairPaths& paths);

// Checks syntax, counts, unique GUIDs, blocks (aligned, within 1..0xBFFF,
// LMC <= 7) and offsets (below 2^LMC).
PathFile read_path_file(std::istream& in, std::string_view source);

// The file's ports in `fabric`: a switch's GUID is its port 0. Throws
// PathFileError ("source: what") naming a GUID that is not a port of the
// fabric.
PairDlids resolve_path_file(const PathFile& file, const topology::Fabric& fabric, std::string_view source);

} // namespace ibsm::routing
