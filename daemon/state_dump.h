// What the daemon leaves in its state directory after each configuration,
// in the formats operators already read: lfts.dump (dump_fts text),
// topology.net (ibnetdiscover text with the assigned LIDs), sl.txt when the
// routing uses more than one SL (routing/sl_file.h; `ibsm analyze DIR` reads
// it) and summary.txt (one screen). guid2lid is the LidStore's. Every file
// is replaced atomically.
#pragma once

#include "daemon/discovery.h"
#include "lidassign/lid_map.h"
#include "routing/tables.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ibsm::daemon {

// Returns the paths written. Throws std::runtime_error naming the file.
std::vector<std::string> write_state_dump(const std::filesystem::path& dir, const DiscoveryResult& found,
                                          const lidassign::LidMap& lids, const routing::RoutingTables& tables,
                                          const std::string& summary);

} // namespace ibsm::daemon
