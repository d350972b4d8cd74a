// Path-based convenience over read_net/write_net. Kept apart from the
// stream-based reader and writer so that those stay free of file I/O, as the
// rest of topology/ is; only edge code (tools/, daemon/) should call these.
#pragma once

#include "topology/fabric.h"
#include "topology/netfile_reader.h"
#include "topology/netfile_writer.h"

#include <string>

namespace ibsm::topology {

// Throws ParseError (file name, line 0 when the file cannot be opened).
Fabric load_net_file(const std::string& path);

// Throws std::runtime_error when the file cannot be written.
void save_net_file(const std::string& path, const Fabric& fabric, const WriteOptions& options = {});

} // namespace ibsm::topology
