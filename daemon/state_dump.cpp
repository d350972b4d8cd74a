#include "daemon/state_dump.h"

#include "daemon/atomic_file.h"
#include "lidassign/base_lids.h"
#include "routing/lft_dump.h"
#include "routing/sl_file.h"
#include "topology/netfile_writer.h"

#include <functional>
#include <ostream>

namespace ibsm::daemon {

std::vector<std::string> write_state_dump(const std::filesystem::path& dir, const DiscoveryResult& found,
                                          const lidassign::LidMap& lids, const routing::RoutingTables& tables,
                                          const std::string& summary)
{
    std::vector<std::string> written;
    auto put = [&](const std::string& name, const std::function<void(std::ostream&)>& write) {
        auto path = dir / name;
        write_file_atomically(path, write);
        written.push_back(path.string());
    };
    put("lfts.dump", [&](std::ostream& out) { routing::write_dump_fts(out, found.fabric, lids, tables); });
    put("topology.net", [&](std::ostream& out) {
        topology::Fabric with_lids = found.fabric;
        lidassign::apply_lids(lids, with_lids);
        topology::WriteOptions wo;
        wo.first = found.sm_port.node; // fed back to ibsim, the SM attaches where it was
        wo.comments.push_back("configured by ibsmd (routing engine " + tables.engine + ")");
        topology::write_net(out, with_lids, wo);
    });
    // The SLs when the engine uses more than one (dfsssp); a file left from
    // an earlier routing would be read with the wrong tables, so it goes.
    if (tables.sl.max_sl() > 0) {
        put("sl.txt", [&](std::ostream& out) { routing::write_sl_file(out, found.fabric, tables); });
    } else {
        std::error_code ignored;
        std::filesystem::remove(dir / "sl.txt", ignored);
    }
    put("summary.txt", [&](std::ostream& out) { out << summary; });
    return written;
}

} // namespace ibsm::daemon
