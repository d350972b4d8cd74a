// What the daemon leaves in its state directory after each configuration,
// in the formats operators already read: lfts.dump (dump_fts text),
// topology.net (ibnetdiscover text with the assigned LIDs), sl.txt when the
// routing uses more than one SL (routing/sl_file.h; `ibsm analyze DIR` reads
// it) and summary.txt (one screen). guid2lid is the LidStore's. Every file
// is replaced atomically. The long-running daemon writes them through
// DumpWriter (dump_writer.h), off the loop and only when they changed.
#pragma once

#include "daemon/core/fabric_state.h"
#include "lidassign/lid_map.h"
#include "routing/tables.h"

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace ibsm::daemon {

// lfts.dump: the switches' tables as dump_fts prints them.
void write_lfts_dump(std::ostream& out, const DiscoveryResult& found, const lidassign::LidMap& lids,
                     const routing::RoutingTables& tables);

// topology.net: ibnetdiscover text with the assigned LIDs, starting at the
// SM's node (fed back to ibsim, the SM attaches where it was).
void write_topology_net(std::ostream& out, const DiscoveryResult& found, const lidassign::LidMap& lids,
                        const std::string& engine);

} // namespace ibsm::daemon
