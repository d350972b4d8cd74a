#include "daemon/sweep/sweep_report.h"

#include "daemon/core/atomic_file.h"
#include "topology/netfile_writer.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <stdexcept>

namespace ibsm::daemon {

void log_discovery(const DiscoveryResult& r, const mad::TransportCounters& c)
{
    const auto& f = r.fabric;
    const double secs = std::chrono::duration<double>(r.elapsed).count();
    spdlog::info("discovered {} nodes ({} switches, {} CAs), {} links in {:.3f} s: {} SMPs, {:.0f} SMPs/s", f.node_count(),
                 f.switch_count(), f.ca_count(), f.link_count(), secs, r.smps, secs > 0 ? r.smps / secs : 0.0);
    if (c.timeouts || c.drops || c.malformed || c.unmatched || c.kernel_errors)
        spdlog::info("transport: {} sent, {} timeouts, {} drops reported, {} malformed, {} unmatched, {} kernel errors", c.sent, c.timeouts, c.drops,
                     c.malformed, c.unmatched, c.kernel_errors);
    for (const auto& m : r.missing) spdlog::warn("missing: {} at DR path {}: {}", m.what, m.path.str(), m.why);
    for (const auto& d : r.duplicates)
        spdlog::error("duplicate GUID {}: first at DR path {}, again at {}: {}", d.guid.str(), d.first.str(),
                      d.second.str(), d.detail);
    if (!r.complete())
        spdlog::warn("sweep incomplete: {} missing item(s), {} duplicate GUID(s)", r.missing.size(), r.duplicates.size());
}

std::string write_topology_dump(const DiscoveryResult& r, const std::string& dir)
{
    const std::filesystem::path target = std::filesystem::path(dir) / "topology.net";
    write_file_atomically(target, [&](std::ostream& out) {
        topology::WriteOptions wo;
        // The SM's node first: fed back to ibsim, the SM attaches where it was.
        wo.first = r.sm_port.node;
        wo.comments.push_back("discovered by ibsmd");
        topology::write_net(out, r.fabric, wo);
    });
    return target.string();
}

} // namespace ibsm::daemon
