#include "daemon/publish/state_dump.h"

#include "daemon/core/atomic_file.h"
#include "lidassign/base_lids.h"
#include "routing/lft_dump.h"
#include "routing/sl_file.h"
#include "topology/netfile_writer.h"

#include <functional>
#include <ostream>

namespace ibsm::daemon {

void write_lfts_dump(std::ostream& out, const DiscoveryResult& found, const lidassign::LidMap& lids,
                     const routing::RoutingTables& tables)
{
    routing::write_dump_fts(out, found.fabric, lids, tables);
}

void write_topology_net(std::ostream& out, const DiscoveryResult& found, const lidassign::LidMap& lids,
                        const std::string& engine)
{
    topology::Fabric with_lids = found.fabric;
    lidassign::apply_lids(lids, with_lids);
    topology::WriteOptions wo;
    wo.first = found.sm_port.node; // fed back to ibsim, the SM attaches where it was
    wo.comments.push_back("configured by ibsmd (routing engine " + (engine.empty() ? std::string("none") : engine) +
                          ")");
    topology::write_net(out, with_lids, wo);
}

} // namespace ibsm::daemon
