#include "daemon/program/vl_programmer.h"

#include "daemon/core/node_names.h"
#include "daemon/core/work_pool.h"
#include "daemon/program/port_vl_tables.h"
#include "mad/port_codes.h"

#include <algorithm>
#include <map>

namespace ibsm::daemon {

namespace {

constexpr std::uint32_t cap_sl_mapping = 1u << 6; // PortInfo CapabilityMask IsSLMappingSupported
constexpr std::size_t sl2vl_bytes = 8;            // 16 SLs, 4 bits each

// The data VLs a port's tables are written for. A port whose OperationalVLs
// code says nothing (0, or the port reported a reserved VLCap) still has
// VL0, which every port has: its tables map every SL there and weigh it.
unsigned data_vls(std::uint8_t operational_vls) { return std::max(1u, mad::vl_count(operational_vls)); }

bool configured_before(const mad::PortInfo& pi)
{
    return pi.port_state == mad::PortState::armed || pi.port_state == mad::PortState::active;
}

// FNV-1a over the bits that matter.
std::uint64_t masked_hash(const SmpData& data, const SmpData& mask)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (std::size_t i = 0; i < data.size(); ++i) {
        h ^= static_cast<std::uint8_t>(data[i] & mask[i]);
        h *= 0x100000001b3ULL;
    }
    return h;
}

bool masked_equal(std::span<const std::uint8_t> got, const SmpData& desired, const SmpData& mask)
{
    if (got.size() < desired.size()) return false;
    for (std::size_t i = 0; i < desired.size(); ++i)
        if ((got[i] & mask[i]) != (desired[i] & mask[i])) return false;
    return true;
}

TableWrite sl2vl_write(std::string name, const DrPath& path, std::uint32_t mod, const mad::Sl2VlTable& table,
                       bool read_first, TableKey key)
{
    TableWrite t;
    t.name = std::move(name);
    t.path = path;
    t.attr = mad::attr::sl2vl_table;
    t.mod = mod;
    mad::encode(table, std::span<std::uint8_t, 64>(t.desired));
    std::fill_n(t.mask.begin(), sl2vl_bytes, std::uint8_t{0xff});
    t.read_first = read_first;
    t.key = key;
    return t;
}

// Blocks of one priority's table that the port implements (cap entries,
// 32 per block): the plan's entries, or the default content without one.
void add_vlarb_writes(std::vector<TableWrite>& out, const PortPlanEntry& e, const std::string& name,
                      const DrPath& path, bool high, unsigned operational_vls, const qos::PortVlTables* planned)
{
    const unsigned cap = high ? e.current.vl_arb_high_cap : e.current.vl_arb_low_cap;
    for (unsigned half = 0; half < 2 && half * mad::vl_arb_block_entries < cap; ++half) {
        using mad::VlArbBlock;
        const auto block = high ? (half ? VlArbBlock::high_32_63 : VlArbBlock::high_0_31)
                                : (half ? VlArbBlock::low_32_63 : VlArbBlock::low_0_31);
        // Entries past 31 are never used by the default table (at most 15 VLs).
        const auto table = planned ? vlarb_block(high ? planned->high : planned->low, half, operational_vls, cap)
                           : half == 0 ? default_vl_arbitration(high, operational_vls, cap)
                                       : mad::VlArbitrationTable{};
        const unsigned entries = std::min<unsigned>(mad::vl_arb_block_entries, cap - half * mad::vl_arb_block_entries);
        TableWrite t;
        t.name = name + (high ? ": VLArb high block " : ": VLArb low block ") + std::to_string(half + 1);
        t.path = path;
        t.attr = mad::attr::vl_arbitration;
        t.mod = mad::vl_arb_attr_mod(block, e.port.port);
        mad::encode(table, std::span<std::uint8_t, 64>(t.desired));
        for (unsigned i = 0; i < entries; ++i) {
            t.mask[2 * i] = 0x0f; // 4 reserved bits, then the VL
            t.mask[2 * i + 1] = 0xff;
        }
        t.read_first = configured_before(e.current);
        t.key = TableKey{e.node_guid, e.port.port.value(), t.attr, t.mod};
        out.push_back(std::move(t));
    }
}

// Per-port tables: SL2VL on CA ports that map SLs, both VLArb priorities
// on every port but switch port 0. The plan is port-major, so consecutive
// SMPs already go to different nodes.
std::vector<TableWrite> port_tables(const DiscoveryResult& found, const std::vector<PortPlanEntry>& plan,
                                    const qos::SlVlPlan& sl_vl, const qos::QosPolicy* policy)
{
    const auto& f = found.fabric;
    const unsigned vls_needed = sl_vl.layers;
    std::vector<TableWrite> out;
    // SL2VL and two VLArb blocks per port: without the reserve, growing the
    // vector copies tens of megabytes at 10 000 ports, on the critical path.
    out.reserve(3 * plan.size());
    for (const auto& e : plan) {
        const bool sw = f.node(e.port.node).is_switch();
        if (sw && e.port.port.value() == 0) continue;
        const unsigned opvls = data_vls(e.desired.operational_vls);
        const qos::PortVlTables* planned =
            sl_vl.from_policy ? &port_vl_tables(sl_vl, policy, sw, e.port.port, f.port(e.port).guid) : nullptr;
        const std::string name = port_name(f, e.port);
        const DrPath path = path_to_port(found, e.port);
        if (!sw && (e.current.capability_mask & cap_sl_mapping))
            out.push_back(sl2vl_write(name + ": SL2VL", path, 0,
                                      planned ? sl2vl_for_port(planned->sl2vl, opvls)
                                              : identity_sl2vl(std::min(vls_needed, opvls)),
                                      configured_before(e.current),
                                      TableKey{e.node_guid, e.port.port.value(), mad::attr::sl2vl_table, 0}));
        add_vlarb_writes(out, e, name, path, false, opvls, planned);
        add_vlarb_writes(out, e, name, path, true, opvls, planned);
    }
    return out;
}

// What a switch's SL2VL tables are about: its cabled external ports and
// its port 0, in plan order.
struct SwitchPorts {
    std::map<topology::NodeId, std::vector<const PortPlanEntry*>> external;
    std::map<topology::NodeId, const PortPlanEntry*> port0;
};

SwitchPorts switch_ports(const topology::Fabric& f, const std::vector<PortPlanEntry>& plan)
{
    SwitchPorts out;
    for (const auto& e : plan) {
        if (!f.node(e.port.node).is_switch()) continue;
        if (e.port.port.value() == 0)
            out.port0[e.port.node] = &e;
        else
            out.external[e.port.node].push_back(&e);
    }
    return out;
}

// The switch table from input `in` to an output port operating `opvls` VLs.
mad::Sl2VlTable switch_sl2vl(const qos::SlVlPlan& sl_vl, PortNum in, unsigned opvls)
{
    if (!sl_vl.from_policy) return identity_sl2vl(std::min(sl_vl.layers, opvls));
    return sl2vl_for_port(in.value() == 0 ? sl_vl.switch_port0.sl2vl : sl_vl.switch_external.sl2vl, opvls);
}

// A switch with OptimizedSLtoVLMappingProgramming: one Set covers every
// (input, output) pair, so the table must suit the port with the fewest
// operational VLs; with a switch port 0 table of its own, a second Set
// covers input port 0 to every output. Not readable as one table: Set only.
std::vector<TableWrite> all_pairs_sl2vl_writes(const DiscoveryResult& found, topology::NodeId id,
                                               const std::vector<const PortPlanEntry*>& ports,
                                               const qos::SlVlPlan& sl_vl)
{
    unsigned opvls = 15;
    for (const auto* e : ports) opvls = std::min(opvls, data_vls(e->desired.operational_vls));
    const Guid guid = found.fabric.node(id).guid;
    const std::uint32_t mod = mad::sl2vl_all_input_ports | mad::sl2vl_all_output_ports;
    std::vector<TableWrite> out;
    const auto all = switch_sl2vl(sl_vl, PortNum(1), opvls);
    out.push_back(sl2vl_write(node_name(found.fabric, id) + ": SL2VL all ports", found.path_to(id), mod, all, false,
                              TableKey{guid, 0, mad::attr::sl2vl_table, mod}));
    if (const auto port0 = switch_sl2vl(sl_vl, PortNum(0), opvls); !(port0 == all)) {
        const std::uint32_t mod0 = mad::sl2vl_all_output_ports | mad::sl2vl_attr_mod(PortNum(0), PortNum(0));
        out.push_back(sl2vl_write(node_name(found.fabric, id) + ": SL2VL in 0 all outputs", found.path_to(id), mod0,
                                  port0, false, TableKey{guid, 0, mad::attr::sl2vl_table, mod0}));
    }
    return out;
}

// Any other switch: one table per (input, output) pair, input port 0
// included, each suited to its output port.
std::vector<TableWrite> per_pair_sl2vl_writes(const DiscoveryResult& found, topology::NodeId id,
                                              const std::vector<const PortPlanEntry*>& ports,
                                              const qos::SlVlPlan& sl_vl)
{
    const Guid guid = found.fabric.node(id).guid;
    const DrPath& path = found.path_to(id);
    const std::string name = node_name(found.fabric, id);
    std::vector<PortNum> inputs{PortNum(0)};
    for (const auto* e : ports) inputs.push_back(e->port.port);
    std::vector<TableWrite> list;
    list.reserve(ports.size() * inputs.size());
    for (const auto* out_port : ports) {
        const unsigned opvls = data_vls(out_port->desired.operational_vls);
        const auto from_port0 = switch_sl2vl(sl_vl, PortNum(0), opvls);
        const auto from_external = switch_sl2vl(sl_vl, PortNum(1), opvls);
        for (PortNum in : inputs) {
            const std::uint32_t mod = mad::sl2vl_attr_mod(in, out_port->port.port);
            list.push_back(sl2vl_write(name + ": SL2VL in " + std::to_string(in.value()) + " out " +
                                           std::to_string(out_port->port.port.value()),
                                       path, mod, in.value() == 0 ? from_port0 : from_external,
                                       configured_before(out_port->current),
                                       TableKey{guid, 0, mad::attr::sl2vl_table, mod}));
        }
    }
    return list;
}

// Round-robin over switches so no switch's SMA queue grows.
void append_round_robin(std::vector<TableWrite>& out, std::vector<std::vector<TableWrite>>& per_switch)
{
    std::size_t pairs = 0;
    for (const auto& list : per_switch) pairs += list.size();
    out.reserve(out.size() + pairs);
    for (std::size_t i = 0;; ++i) {
        bool any = false;
        for (auto& list : per_switch) {
            if (i >= list.size()) continue;
            out.push_back(std::move(list[i]));
            any = true;
        }
        if (!any) break;
    }
}

} // namespace

mad::Sl2VlTable identity_sl2vl(unsigned vls)
{
    const unsigned n = std::clamp(vls, 1u, 15u);
    mad::Sl2VlTable t;
    for (std::size_t sl = 0; sl < mad::num_sls; ++sl) t.vl[sl] = static_cast<std::uint8_t>(sl % n);
    return t;
}

mad::VlArbitrationTable default_vl_arbitration(bool high, unsigned operational_vls, unsigned cap)
{
    mad::VlArbitrationTable t;
    if (high) return t;
    // With fewer entries than VLs (cap < OperationalVLs) the highest VLs get
    // no weight; the SL2VL tables above only use VLs below the engine's need,
    // which never exceeds what the entries cover in practice (cap >= 8).
    const unsigned n = std::min({operational_vls, cap, static_cast<unsigned>(mad::vl_arb_block_entries)});
    for (unsigned i = 0; i < n; ++i) t.entries[i] = {static_cast<std::uint8_t>(i), default_vl_weight};
    return t;
}

VlTablesHeld held_vl_tables(const std::vector<TableWrite>& writes)
{
    VlTablesHeld held;
    for (const auto& t : writes) {
        if (t.attr == mad::attr::sl2vl_table) {
            if (auto table = mad::decode_sl2vl_table(t.desired))
                held.sl2vl.push_back({t.key.node, t.key.port, t.mod, *table});
        } else if (t.attr == mad::attr::vl_arbitration) {
            if (auto table = mad::decode_vl_arbitration(t.desired))
                held.vlarb.push_back({t.key.node, t.key.port, static_cast<std::uint8_t>(t.mod >> 16), *table});
        }
    }
    held.sort();
    return held;
}

std::vector<TableWrite> plan_vl_tables(const DiscoveryResult& found, const std::vector<PortPlanEntry>& plan,
                                       unsigned vls_needed, const VlSettings& settings, std::uint64_t* switches_left,
                                       std::uint64_t* ports_left)
{
    return plan_vl_tables(found, plan, std::get<qos::SlVlPlan>(qos::plan_sl_vl({}, vls_needed, 15)), nullptr,
                          settings, switches_left, ports_left);
}

std::vector<TableWrite> plan_vl_tables(const DiscoveryResult& found, const std::vector<PortPlanEntry>& plan,
                                       const qos::SlVlPlan& sl_vl, const qos::QosPolicy* policy,
                                       const VlSettings& settings, std::uint64_t* switches_left,
                                       std::uint64_t* ports_left)
{
    // Every SL on VL 0 and no policy weighing VLs: the SA hands out SL 0,
    // which every port maps onto a VL its arbitration serves as it came up
    // (see the header: "When").
    const bool vl0_only = !sl_vl.from_policy && sl_vl.layers <= 1;
    std::vector<TableWrite> out;
    if (vl0_only && !settings.all_port_tables) {
        if (ports_left)
            *ports_left += static_cast<std::uint64_t>(std::count_if(plan.begin(), plan.end(), [&](const auto& e) {
                return !(found.fabric.node(e.port.node).is_switch() && e.port.port.value() == 0);
            }));
    } else {
        out = port_tables(found, plan, sl_vl, policy);
    }
    // Every SL on VL 0 on every switch hop: any switch table gives a one-VL
    // routing's deadlock freedom, so switches keep their own.
    const auto all_vl0 = [](const std::array<std::uint8_t, 16>& t) {
        return std::all_of(t.begin(), t.end(), [](std::uint8_t vl) { return vl == 0; });
    };
    const bool one_vl = sl_vl.from_policy ? all_vl0(sl_vl.switch_external.sl2vl) && all_vl0(sl_vl.switch_port0.sl2vl)
                                          : sl_vl.layers <= 1;
    const auto sw = switch_ports(found.fabric, plan);
    // Switch SL2VL tables, one list per switch, interleaved below.
    std::vector<std::vector<TableWrite>> per_switch;
    for (const auto& [id, ports] : sw.external) {
        const auto p0 = sw.port0.find(id);
        if (p0 == sw.port0.end() || !(p0->second->current.capability_mask & cap_sl_mapping)) continue;
        const auto si = found.switch_info.find(id);
        if (si != found.switch_info.end() && si->second.optimized_sl2vl_mapping != 0) {
            // One SMP, but still none when no port's tables are needed either.
            if (vl0_only && !settings.all_port_tables && !settings.all_switch_pairs) {
                if (switches_left) ++*switches_left;
                continue;
            }
            for (auto& w : all_pairs_sl2vl_writes(found, id, ports, sl_vl)) out.push_back(std::move(w));
            continue;
        }
        if (!settings.all_switch_pairs && one_vl) {
            if (switches_left) ++*switches_left;
            continue;
        }
        per_switch.push_back(per_pair_sl2vl_writes(found, id, ports, sl_vl));
    }
    append_round_robin(out, per_switch);
    return out;
}

boost::asio::awaitable<std::string> VlProgrammer::write(mad::Transport& transport, const TableWrite& t,
                                                        std::uint64_t hash, bool read_first, VlReport& report)
{
    if (read_first) {
        auto got = co_await dr_get(transport, t.path, t.attr, t.mod);
        ++report.gets;
        if (got.ok() && masked_equal(got.smp.data(), t.desired, t.mask)) {
            confirmed_[t.key] = hash;
            ++report.tables_ok;
            co_return std::string{};
        }
    }
    auto r = co_await dr_set(transport, t.path, t.attr, t.mod, t.desired);
    ++report.sets;
    ++(t.attr == mad::attr::sl2vl_table ? report.sl2vl_sets : report.vlarb_sets);
    if (!r.ok()) co_return t.name + " Set " + failure_text(r);
    if (!masked_equal(r.smp.data(), t.desired, t.mask)) co_return t.name + " Set answered with another table";
    confirmed_[t.key] = hash;
    ++report.tables_ok;
    co_return std::string{};
}

VlPlan VlProgrammer::plan(const DiscoveryResult& found, const std::vector<PortPlanEntry>& ports,
                          unsigned vls_needed) const
{
    VlPlan p;
    p.writes = plan_vl_tables(found, ports, vls_needed, settings_, &p.switches_left, &p.ports_left);
    return p;
}

VlPlan VlProgrammer::plan(const DiscoveryResult& found, const std::vector<PortPlanEntry>& ports,
                          const qos::SlVlPlan& sl_vl, const qos::QosPolicy* policy) const
{
    VlPlan p;
    p.writes = plan_vl_tables(found, ports, sl_vl, policy, settings_, &p.switches_left, &p.ports_left);
    return p;
}

boost::asio::awaitable<VlReport> VlProgrammer::program(mad::Transport& transport, const DiscoveryResult& found,
                                                       const std::vector<PortPlanEntry>& ports, unsigned vls_needed)
{
    co_return co_await program(transport, plan(found, ports, vls_needed));
}

boost::asio::awaitable<VlReport> VlProgrammer::program(mad::Transport& transport, VlPlan planned)
{
    VlReport report;
    report.switches_left = planned.switches_left;
    report.ports_left = planned.ports_left;
    std::vector<std::pair<const TableWrite*, std::uint64_t>> todo;
    for (const auto& t : planned.writes) {
        const std::uint64_t hash = masked_hash(t.desired, t.mask);
        if (auto c = confirmed_.find(t.key); c != confirmed_.end() && c->second == hash) {
            ++report.tables_ok;
            continue;
        }
        todo.emplace_back(&t, hash);
    }
    // One confirmed entry per table written: no rehashing mid-phase.
    confirmed_.reserve(confirmed_.size() + todo.size());
    struct Failed {
        std::pair<const TableWrite*, std::uint64_t> write;
        std::string why;
    };
    std::vector<Failed> failed;
    for (unsigned round = 0; round < std::max(1u, settings_.rounds) && !todo.empty(); ++round) {
        failed.clear();
        const bool first = round == 0;
        co_await run_jobs(std::move(todo), settings_.width,
                          [&](std::pair<const TableWrite*, std::uint64_t> w) -> boost::asio::awaitable<void> {
                              // Later rounds Set without reading: the Set confirms as well.
                              auto why = co_await write(transport, *w.first, w.second, first && w.first->read_first,
                                                        report);
                              if (!why.empty()) failed.push_back({w, std::move(why)});
                          });
        todo.clear();
        for (const auto& f : failed) todo.push_back(f.write);
    }
    for (auto& f : failed) note_failure(report, std::move(f.why));
    co_return report;
}

void VlProgrammer::forget(const std::set<std::pair<Guid, std::uint8_t>>& ports)
{
    if (ports.empty()) return;
    std::erase_if(confirmed_, [&](const auto& kv) { return ports.count({kv.first.node, kv.first.port}) != 0; });
}

} // namespace ibsm::daemon
