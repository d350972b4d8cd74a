#include "daemon/sweep/sweep_report.h"

#include "daemon/core/atomic_file.h"
#include "daemon/core/node_names.h"
#include "topology/netfile_writer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <sstream>
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

void log_transport_trouble(const mad::TransportCounters& c)
{
    if (c.timeouts || c.drops || c.failed || c.unmatched || c.malformed || c.kernel_errors)
        spdlog::info("transport: {} sent, {} timeouts, {} drops reported, {} resends after a backoff, {} failed (refused or given up), {} late/unmatched, {} malformed, {} kernel errors",
                     c.sent, c.timeouts, c.drops, c.backoffs, c.failed, c.unmatched, c.malformed, c.kernel_errors);
}

std::string subnet_summary(const SweepOutcome& o, const DiscoveryResult& found, const LidAssignment& lids,
                           std::uint8_t lmc)
{
    const std::string state = o.degraded ? "SUBNET UP, DEGRADED: " + o.reason
                              : o.up     ? std::string("SUBNET UP")
                                         : "NOT UP: " + o.reason;
    std::ostringstream out;
    const auto now = std::time(nullptr);
    char when[64];
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
    const auto& sm = found.fabric.port(found.sm_port);
    // A path engine in the colour-first order gives each CA port its own LMC.
    int lmc_lo = lmc, lmc_hi = lmc;
    bool first = true;
    for (const auto& [ref, pl] : lids.lids.entries()) {
        if (found.fabric.node(ref.node).is_switch()) continue;
        lmc_lo = first ? pl.lmc : std::min<int>(lmc_lo, pl.lmc);
        lmc_hi = first ? pl.lmc : std::max<int>(lmc_hi, pl.lmc);
        first = false;
    }
    const std::string lmc_text = lmc_lo == lmc_hi && lmc_lo == lmc
                                     ? std::to_string(lmc)
                                     : "per port " + std::to_string(lmc_lo) + ".." + std::to_string(lmc_hi);
    out << "ibsmd subnet summary (" << when << ")\n"
        << "state:        " << state << "\n"
        << "generation:   " << o.generation << " (" << (o.kind == SweepKind::heavy ? "heavy sweep" : "re-route")
        << ")\n"
        << "SM port:      " << sm.guid.str() << " LID " << lids.sm_lid.value() << "\n"
        << "fabric:       " << o.nodes << " nodes (" << o.switches << " switches, " << o.cas << " CAs), " << o.links
        << " links\n"
        << "discovery:    " << (found.complete() ? "complete" : "INCOMPLETE") << " (" << found.missing.size()
        << " missing, " << found.duplicates.size() << " duplicate GUIDs)\n"
        << "LIDs:         " << lids.lids.port_count() << " ports, top LID " << lids.lids.top().value() << ", LMC "
        << lmc_text << "\n"
        << "routing:      " << (o.engine.empty() ? "-" : o.engine) << "\n"
        << "LFT blocks sent: " << o.lft_blocks_sent << "\n"
        << "\nphase        seconds       SMPs\n";
    for (const auto& p : o.phases) {
        char line[128];
        std::snprintf(line, sizeof line, "%-10s %9.3f %10llu  ", p.name.c_str(), p.seconds,
                      static_cast<unsigned long long>(p.smps));
        out << line << p.detail << "\n";
    }
    char total[128];
    std::snprintf(total, sizeof total, "%-10s %9.3f %10llu  %.0f SMPs/s\n", "total", o.seconds,
                  static_cast<unsigned long long>(o.smps), o.seconds > 0 ? o.smps / o.seconds : 0.0);
    out << total;
    return out.str();
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

LinkCheckLog link_check_log(const topology::Fabric& f, const health::LinkChecks& checks, std::size_t max_warnings)
{
    LinkCheckLog out;
    std::size_t links = 0, downshifted = 0, other = 0;
    std::vector<std::string> bad;
    for (const auto& [id, here] : checks) {
        const auto node = f.find_node(id.node);
        if (!node) continue;
        const topology::PortRef a{*node, id.port};
        const auto b = f.remote(a);
        const health::LinkCheck* there = nullptr;
        if (b) {
            const health::PortId bid{f.node(b->node).guid, b->port};
            if (bid < id && checks.count(bid)) continue; // the link is counted from its other end
            if (auto it = checks.find(bid); it != checks.end()) there = &it->second;
        }
        ++links;
        const bool down = here.downshifted || (there && there->downshifted);
        std::vector<std::string> findings = here.findings;
        if (there)
            for (const auto& x : there->findings)
                if (std::find(findings.begin(), findings.end(), x) == findings.end()) findings.push_back(x);
        if (findings.empty()) continue;
        if (down) ++downshifted;
        else ++other;
        std::string text = port_name(f, a) + (b ? " - " + port_name(f, *b) : std::string()) + ": ";
        for (std::size_t i = 0; i < findings.size(); ++i) text += (i ? ", " : "") + findings[i];
        bad.push_back(std::move(text));
    }
    out.summary = "link check: " + std::to_string(links) + " links, " + std::to_string(downshifted) + " downshifted, " +
                  std::to_string(other) + " with MTU/VLs below their ends'";
    if (!bad.empty()) out.summary += ": first " + bad.front();
    for (std::size_t i = 0; i < bad.size() && i < max_warnings; ++i) out.warnings.push_back(bad[i]);
    if (bad.size() > max_warnings)
        out.warnings.push_back("... and " + std::to_string(bad.size() - max_warnings) + " more link(s) with findings");
    return out;
}

} // namespace ibsm::daemon
