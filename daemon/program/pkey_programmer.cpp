#include "daemon/program/pkey_programmer.h"

#include "daemon/core/smp_ops.h"
#include "daemon/core/work_pool.h"

#include <algorithm>

namespace ibsm::daemon {

using topology::PortRef;

std::optional<std::vector<mad::PKeyTable>> pkey_blocks_of(const DiscoveryResult& found,
                                                          const partition::Partitions& partitions, PortRef ref,
                                                          std::size_t* dropped)
{
    const auto& f = found.fabric;
    const auto& node = f.node(ref.node);
    const std::uint8_t p = ref.port.value();
    if (node.is_switch()) {
        if (p == 0) return partition::table_blocks(partitions.keys_of(node.guid), node.partition_cap, dropped);
        auto si = found.switch_info.find(ref.node);
        const std::uint16_t enforce = si == found.switch_info.end() ? 0 : si->second.partition_enforcement_cap;
        if (enforce == 0 || p > node.num_ports()) return std::nullopt;
        auto far = f.remote(ref);
        if (!far || f.node(far->node).is_switch()) return std::nullopt;
        const auto& ca_port = f.port(*far);
        if (!ca_port.known || ca_port.guid.is_zero()) return std::nullopt;
        return partition::table_blocks(partitions.keys_of(ca_port.guid), enforce, dropped);
    }
    if (p == 0 || p > node.num_ports()) return std::nullopt;
    const auto& port = f.port(ref);
    // A CA answers only on ports the SM reaches: its own, or cabled.
    if (!port.known || port.guid.is_zero() || (ref != found.sm_port && !f.remote(ref))) return std::nullopt;
    return partition::table_blocks(partitions.keys_of(port.guid), node.partition_cap, dropped);
}

std::vector<PKeyTarget> pkey_targets(const DiscoveryResult& found, const partition::Partitions& partitions)
{
    std::vector<PKeyTarget> out;
    const auto& f = found.fabric;
    for (auto id : f.node_ids()) {
        const auto& node = f.node(id);
        for (unsigned p = 0; p <= node.num_ports(); ++p) {
            const PortRef ref{id, PortNum(static_cast<std::uint8_t>(p))};
            PKeyTarget t;
            auto blocks = pkey_blocks_of(found, partitions, ref, &t.dropped);
            if (!blocks) continue;
            t.node_guid = node.guid;
            t.port = ref.port.value();
            t.path = node.is_switch() ? found.path_to(id) : path_to_port(found, ref);
            t.switch_node = node.is_switch();
            t.blocks = std::move(*blocks);
            t.name = node.guid.str() + (node.description.empty() ? "" : " (" + node.description + ")") + " port " +
                     std::to_string(p);
            out.push_back(std::move(t));
        }
    }
    return out;
}

void PKeyProgrammer::forget(const std::set<std::pair<Guid, std::uint8_t>>& ports)
{
    for (const auto& p : ports) confirmed_.erase(p);
}

boost::asio::awaitable<PKeyReport> PKeyProgrammer::program(mad::Transport& transport, const DiscoveryResult& found,
                                                           const partition::Partitions& partitions)
{
    PKeyReport report;
    auto targets = pkey_targets(found, partitions);
    report.ports = targets.size();
    for (const auto& t : targets) {
        report.blocks_desired += t.blocks.size();
        if (t.dropped) {
            report.keys_dropped += t.dropped;
            keep_failure(report.failures, t.name + ": " + std::to_string(t.dropped) +
                                              " P_Key(s) do not fit its table; the partitions last in the "
                                              "configuration are missing there");
        }
        auto& c = confirmed_[{t.node_guid, t.port}];
        c.resize(std::max(c.size(), t.blocks.size()));
    }
    for (unsigned round = 0; round < std::max(1u, settings_.rounds); ++round) {
        std::vector<std::pair<const PKeyTarget*, std::size_t>> work;
        for (const auto& t : targets) {
            const auto& c = confirmed_[{t.node_guid, t.port}];
            for (std::size_t b = 0; b < t.blocks.size(); ++b)
                if (c[b] != t.blocks[b]) work.emplace_back(&t, b);
        }
        if (work.empty()) break;
        co_await run_jobs(std::move(work), settings_.width,
                          [&](std::pair<const PKeyTarget*, std::size_t> tb) -> boost::asio::awaitable<void> {
                              auto [t, b] = tb;
                              SmpData data{};
                              mad::encode(t->blocks[b], std::span<std::uint8_t, 64>(data));
                              const auto mod = mad::pkey_attr_mod(static_cast<std::uint16_t>(b),
                                                                  t->switch_node ? t->port : 0);
                              auto r = co_await dr_set(transport, t->path, mad::attr_pkey_table, mod, data);
                              ++report.blocks_sent;
                              auto& slot = confirmed_[{t->node_guid, t->port}][b];
                              if (!r.ok()) {
                                  keep_failure(report.failures, t->name + " block " + std::to_string(b) +
                                                                    ": P_KeyTable Set " + failure_text(r));
                                  co_return;
                              }
                              auto got = mad::decode_pkey_table(r.smp.data());
                              if (got && *got == t->blocks[b]) {
                                  slot = *got;
                              } else {
                                  slot.reset();
                                  keep_failure(report.failures, t->name + " block " + std::to_string(b) +
                                                                    ": P_KeyTable Set answered with other content");
                              }
                          });
    }
    for (const auto& t : targets) {
        const auto& c = confirmed_[{t.node_guid, t.port}];
        for (std::size_t b = 0; b < t.blocks.size(); ++b)
            if (c[b] != t.blocks[b]) ++report.blocks_dirty;
    }
    co_return report;
}

} // namespace ibsm::daemon
