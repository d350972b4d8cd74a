#include "daemon/vl_programmer.h"

#include "daemon/smp_ops.h"
#include "daemon/work_pool.h"

#include <algorithm>

namespace ibsm::daemon {

namespace {

constexpr std::uint32_t cap_sl_mapping = 1u << 6; // PortInfo CapabilityMask IsSLMappingSupported
constexpr std::size_t max_failures_kept = 20;

void note_failure(VlReport& report, std::string text)
{
    ++report.failed;
    if (report.failures.size() < max_failures_kept) report.failures.push_back(std::move(text));
}

} // namespace

mad::Sl2VlTable identity_sl2vl(unsigned vls)
{
    const unsigned n = std::clamp(vls, 1u, 15u);
    mad::Sl2VlTable t;
    for (std::size_t sl = 0; sl < mad::num_sls; ++sl) t.vl[sl] = static_cast<std::uint8_t>(sl % n);
    return t;
}

unsigned vl_count(std::uint8_t code)
{
    switch (code) {
    case 1: return 1;
    case 2: return 2;
    case 3: return 4;
    case 4: return 8;
    case 5: return 15;
    default: return 1;
    }
}

boost::asio::awaitable<VlReport> VlProgrammer::program(mad::Transport& transport, const DiscoveryResult& found,
                                                       const std::vector<PortPlanEntry>& plan, unsigned vls_needed)
{
    VlReport report;
    const auto& f = found.fabric;
    std::vector<Job> jobs;
    for (const auto& e : plan) {
        if (f.node(e.port.node).is_switch()) continue;
        if (!(e.current.capability_mask & cap_sl_mapping)) continue;
        const auto key = std::make_pair(e.node_guid, e.port.port.value());
        const auto desired = identity_sl2vl(std::min(vls_needed, vl_count(e.desired.operational_vls)));
        if (auto c = confirmed_.find(key); c != confirmed_.end() && c->second == desired) {
            ++report.ports_ok;
            continue;
        }
        jobs.push_back([this, &transport, &report, &e, key, desired]() -> boost::asio::awaitable<void> {
            auto got = co_await dr_get(transport, e.path, mad::attr::sl2vl_table, 0);
            ++report.gets;
            if (got.ok()) {
                if (auto t = mad::decode_sl2vl_table(got.smp.data()); t && *t == desired) {
                    confirmed_[key] = *t;
                    ++report.ports_ok;
                    co_return;
                }
            }
            SmpData data{};
            mad::encode(desired, std::span<std::uint8_t, 64>(data));
            auto r = co_await dr_set(transport, e.path, mad::attr::sl2vl_table, 0, data);
            ++report.sets;
            if (!r.ok()) {
                note_failure(report, e.name + ": SL2VL Set " + failure_text(r));
                co_return;
            }
            auto t = mad::decode_sl2vl_table(r.smp.data());
            if (!t || *t != desired) {
                note_failure(report, e.name + ": SL2VL Set answered with another table");
                co_return;
            }
            confirmed_[key] = *t;
            ++report.ports_ok;
        });
    }
    for (const auto& [id, si] : found.switch_info) {
        if (!f.node(id).is_switch()) continue;
        if (si.optimized_sl2vl_mapping == 0) {
            ++report.switches_not_programmed;
            continue;
        }
        // One Set covers every (input, output) pair of the switch.
        const auto& node = f.node(id);
        const auto key = std::make_pair(node.guid, std::uint8_t{0});
        const auto desired = identity_sl2vl(vls_needed);
        if (auto c = confirmed_.find(key); c != confirmed_.end() && c->second == desired) continue;
        const DrPath path = found.path_to(id);
        const std::string name = "switch " + node.guid.str();
        jobs.push_back([this, &transport, &report, path, name, key, desired]() -> boost::asio::awaitable<void> {
            SmpData data{};
            mad::encode(desired, std::span<std::uint8_t, 64>(data));
            auto r = co_await dr_set(transport, path, mad::attr::sl2vl_table,
                                     mad::sl2vl_all_input_ports | mad::sl2vl_all_output_ports, data);
            ++report.sets;
            if (!r.ok()) {
                note_failure(report, name + ": SL2VL Set (all ports) " + failure_text(r));
                co_return;
            }
            confirmed_[key] = desired;
        });
    }
    co_await run_jobs(std::move(jobs), width_);
    co_return report;
}

} // namespace ibsm::daemon
