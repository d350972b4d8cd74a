#include "fake_fabric.h"

#include "mad/linear_forwarding_table.h"
#include "mad/node_description.h"
#include "mad/node_info.h"

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace ibsm::test {

namespace {

using topology::NodeId;
using topology::PortRef;

constexpr std::size_t off_hop_pointer = 6;
constexpr std::size_t off_return_path = 192;

// PortInfo CapabilityMask bits (IBA 14.2.5.6, table 146) the fake advertises.
constexpr std::uint32_t cap_is_trap_supported = 1u << 3;
constexpr std::uint32_t cap_is_sl_mapping_supported = 1u << 6;

// PortPhysicalState (IBA table 146).
constexpr std::uint8_t phys_polling = 2;
constexpr std::uint8_t phys_disabled = 3;
constexpr std::uint8_t phys_link_up = 5;

// Entries a VL arbitration block holds.
constexpr unsigned vlarb_entries = static_cast<unsigned>(mad::vl_arb_block_entries);

using Data = std::array<std::uint8_t, mad::smp_data_size>;

template <class T>
Data encoded(const T& v)
{
    Data d{};
    mad::encode(v, std::span<std::uint8_t, 64>(d));
    return d;
}

// A port as it comes up from reset: a QDR 4x port with 8 data VLs and a
// 2048-byte MTU, whose link trained (INIT) when it is cabled. Switch port 0
// is the management port: always ACTIVE, no link, no VL arbitration.
mad::PortInfo fresh_port_info(bool sw, std::uint8_t port, bool cabled)
{
    mad::PortInfo pi;
    const bool port0 = sw && port == 0;
    pi.gid_prefix = sw ? 0 : 0xfe80000000000000ULL;
    pi.capability_mask = (sw && !port0) ? 0 : (cap_is_trap_supported | cap_is_sl_mapping_supported);
    pi.link_width_enabled = 3;   // 1x, 4x
    pi.link_width_supported = 3;
    pi.link_width_active = 2;    // 4x
    pi.link_speed_supported = 7; // SDR, DDR, QDR
    pi.link_speed_enabled = 7;
    pi.link_speed_active = 4;    // QDR
    if (port0) {
        pi.port_state = mad::PortState::active;
        pi.port_phys_state = phys_link_up;
    } else {
        pi.port_state = cabled ? mad::PortState::init : mad::PortState::down;
        pi.port_phys_state = cabled ? phys_link_up : phys_polling;
    }
    pi.link_down_default_state = 2; // Polling
    pi.mtu_cap = 4;                 // 2048
    pi.neighbor_mtu = 4;
    pi.vl_cap = 4;                  // VL0-7
    pi.operational_vls = 1;         // VL0 until the SM says otherwise
    pi.vl_arb_high_cap = port0 ? 0 : 8;
    pi.vl_arb_low_cap = port0 ? 0 : 8;
    pi.hoq_life = 0x1f;
    pi.resp_time_value = 0x10;
    pi.guid_cap = 1;
    return pi;
}

bool at_least(mad::PortState s, mad::PortState min)
{
    return static_cast<std::uint8_t>(s) >= static_cast<std::uint8_t>(min);
}

mad::Notice trap128(Lid switch_lid)
{
    mad::Notice n;
    n.is_generic = true;
    n.type = mad::notice_type::urgent;
    n.producer_type_or_vendor_id = static_cast<std::uint32_t>(mad::NodeKind::switch_node);
    n.trap_number_or_device_id = mad::trap::link_state_change;
    n.issuer_lid = switch_lid;
    n.details = mad::LinkStateChangeDetails{switch_lid};
    return n;
}

} // namespace

void FakeFabric::move_sm(PortRef p)
{
    if (p.node.value >= fabric_.node_count() || fabric_.node(p.node).is_switch() || p.port.value() == 0 ||
        p.port.value() > fabric_.node(p.node).num_ports())
        throw std::invalid_argument("FakeFabric: the SM port must be a port of a CA");
    sm_port_ = p;
}

FakeFabric::FakeFabric(const topology::Fabric& fabric, FakeFabricOptions options)
    : fabric_(fabric), options_(options)
{
    // ibsim's rule for CA port GUIDs, where the Fabric has none.
    for (auto id : fabric_.node_ids()) {
        const auto& n = fabric_.node(id);
        if (n.is_switch()) continue;
        for (std::uint8_t p = 1; p <= n.num_ports(); ++p)
            if (n.port(PortNum(p)).guid.is_zero()) fabric_.set_port_guid({id, PortNum(p)}, Guid(n.guid.value() + p));
    }
    if (options_.sm_port) {
        const auto& p = *options_.sm_port;
        if (p.node.value >= fabric_.node_count() || fabric_.node(p.node).is_switch() || p.port.value() == 0 ||
            p.port.value() > fabric_.node(p.node).num_ports())
            throw std::invalid_argument("FakeFabric: the SM port must be a port of a CA");
        sm_port_ = p;
    } else {
        bool found = false;
        for (auto id : fabric_.node_ids()) {
            const auto& n = fabric_.node(id);
            if (n.type != topology::NodeType::ca) continue;
            sm_port_ = {id, PortNum(1)};
            for (std::uint8_t p = 1; p <= n.num_ports(); ++p)
                if (n.port(PortNum(p)).remote) {
                    sm_port_ = {id, PortNum(p)};
                    break;
                }
            found = true;
            break;
        }
        if (!found) throw std::invalid_argument("FakeFabric: the fabric has no CA to attach the SM to");
    }
    for (auto id : fabric_.node_ids()) add_sim_node(id);
    if (options_.reactor && ::pipe2(pipe_, O_NONBLOCK | O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
}

FakeFabric::~FakeFabric()
{
    if (pipe_[0] >= 0) ::close(pipe_[0]);
    if (pipe_[1] >= 0) ::close(pipe_[1]);
}

void FakeFabric::add_sim_node(NodeId id)
{
    const auto& n = fabric_.node(id);
    SimNode s;
    s.ports.resize(n.ports.size());
    bool any_cable = false;
    for (std::size_t p = 0; p < n.ports.size(); ++p) {
        const bool cabled = p != 0 && n.ports[p].remote.has_value();
        any_cable = any_cable || cabled;
        s.ports[p].info = fresh_port_info(n.is_switch(), static_cast<std::uint8_t>(p), cabled);
    }
    if (n.is_switch()) {
        mad::SwitchInfo si;
        si.linear_fdb_cap = options_.linear_fdb_cap;
        // As ibsim's switches: 1024 MLIDs, 64-entry enforcement tables.
        si.multicast_fdb_cap = 1024;
        si.partition_enforcement_cap = 64;
        si.inbound_enforcement_cap = true;
        si.outbound_enforcement_cap = true;
        si.optimized_sl2vl_mapping = options_.optimized_sl2vl ? 1 : 0;
        // Its ports have just come up from DOWN to INIT.
        si.port_state_change = any_cable;
        s.sw = si;
        s.sl2vl.resize(n.ports.size() * n.ports.size());
        s.mft.resize(1024);
    }
    for (auto& port : s.ports) port.pkeys[0] = 0xffff; // what ibsim ports start with
    nodes_.push_back(std::move(s));
}

// ---------------------------------------------------------------- MadPort

// The pipe holds one byte exactly while something is queued, so it never
// fills up however many MADs wait (the transport drains until try_receive
// says there is nothing left).
void FakeFabric::enqueue(mad::RawReceive r)
{
    const bool was_empty = rx_.empty();
    rx_.push_back(std::move(r));
    if (options_.reactor && was_empty) {
        char c = 1;
        [[maybe_unused]] auto n = ::write(pipe_[1], &c, 1);
    }
}

std::optional<mad::RawReceive> FakeFabric::try_receive()
{
    if (rx_.empty()) return std::nullopt;
    auto r = std::move(rx_.front());
    rx_.pop_front();
    if (options_.reactor && rx_.empty()) {
        char c;
        [[maybe_unused]] auto n = ::read(pipe_[0], &c, 1);
    }
    return r;
}

bool FakeFabric::wait_readable(int timeout_ms)
{
    if (!rx_.empty()) return true;
    // Everything is answered inside send(): nothing arrives while waiting.
    // Sleeping keeps the polled transport from spinning between its timers.
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return !rx_.empty();
}

bool FakeFabric::send(const mad::Smp& smp, Lid dlid, std::uint32_t)
{
    if (smp.mgmt_class() == mad::perf::mgmt_class_perf) {
        // LID-routed to the PMA on QP1; answered with the whole attribute.
        ++counters_.pma_requests[smp.attr_id()];
        ++counters_.lid_routed;
        const auto at = route_lid(sm_port_, dlid);
        if (!at) {
            ++counters_.dropped_route;
            return true;
        }
        if (auto fault = take_fault(at->node, smp); fault && fault->status == 0) {
            ++counters_.dropped_injected;
            return true;
        }
        mad::RawReceive r;
        r.smp = pma(smp, *at);
        r.length = mad::mad_size;
        enqueue(std::move(r));
        ++counters_.answered;
        return true;
    }
    ++counters_.requests[{smp.method(), smp.attr_id()}];
    const bool dr = smp.directed_route();
    ++(dr ? counters_.directed_route : counters_.lid_routed);
    if (options_.trap_repeat_every && !traps_.empty() && ++since_repeat_ >= options_.trap_repeat_every) tick();
    if (smp.method() == static_cast<std::uint8_t>(mad::Method::trap_repress)) {
        repress(smp);
        return true;
    }
    if (smp.is_response()) return true; // nobody in the fabric asked

    std::array<std::uint8_t, 64> return_path{};
    std::optional<Delivery> at;
    if (dr) {
        if (smp.dr_slid().value() == Lid::permissive && smp.dr_dlid().value() == Lid::permissive)
            at = route_dr(smp, return_path);
    } else if (auto p = route_lid(sm_port_, dlid)) {
        at = Delivery{*p};
    }
    if (!at) {
        ++counters_.dropped_route;
        return true;
    }

    const bool own_sm_info = smp.attr_id() == mad::attr::sm_info && at->at.node == sm_port_.node;
    if (!own_sm_info && lose(loss_.request)) {
        ++counters_.lost_requests;
        lost(smp);
        return true;
    }

    auto fault = take_fault(at->at.node, smp);
    const bool lose_answer = fault && fault->lose_answer;
    if (lose_answer) fault.reset();
    const bool garble = fault && fault->garble, truncate = fault && fault->truncate;
    if (garble || truncate) fault.reset();
    if (fault && fault->status == 0) {
        ++counters_.dropped_injected;
        return true;
    }

    if (smp.attr_id() == mad::attr::sm_info && !fault && remote_sms_.count(at->at)) {
        const auto& remote = remote_sms_.at(at->at);
        if (!remote) {
            ++counters_.dropped_no_sm;
            return true;
        }
        auto answer = *remote;
        const auto asked = mad::decode_sm_info(smp.data());
        if (!asked || asked->sm_key != answer.sm_key) answer.sm_key = 0;
        if (smp.method() == static_cast<std::uint8_t>(mad::Method::set) && asked)
            remote_sets_.push_back(RemoteSmSet{smp.attr_mod(), *asked});
        mad::RawReceive r;
        r.smp = mad::make_get_resp(smp, encoded(answer));
        if (dr) {
            auto b = r.smp.bytes();
            b[off_hop_pointer] = 0;
            for (std::size_t i = 1; i <= smp.hop_count(); ++i) b[off_return_path + i] = return_path[i];
        }
        r.length = mad::mad_size;
        enqueue(std::move(r));
        ++counters_.answered;
        return true;
    }
    if (smp.attr_id() == mad::attr::sm_info && !fault) {
        if (at->at.node != sm_port_.node) {
            ++counters_.dropped_no_sm;
            return true;
        }
        // The SM's own SMA hands SMInfo to the SM (our transport's
        // unsolicited handler); its answer comes back through send_response.
        mad::RawReceive r;
        r.smp = smp;
        if (dr) r.smp.bytes()[off_hop_pointer] = static_cast<std::uint8_t>(smp.hop_count() + 1);
        r.length = mad::mad_size;
        to_sm_[static_cast<std::uint32_t>(smp.tid())] = true;
        enqueue(std::move(r));
        return true;
    }

    bool hide_key = false;
    if (!fault && !mkey_check(smp, at->at, hide_key)) {
        ++counters_.mkey_failures;
        return true;
    }

    Answer a;
    if (fault) {
        a.status = fault->status;
    } else if (garble || truncate) {
        // zeros, nothing applied
    } else {
        a = handle(smp, *at);
        if (hide_key && smp.attr_id() == mad::attr::port_info) std::fill_n(a.data.begin(), 8, std::uint8_t{0});
    }

    if (!dr) {
        // The answer travels back to the SM's LID by the same tables.
        const PortRef from = fabric_.node(at->at.node).is_switch() ? PortRef{at->at.node, PortNum(0)} : at->at;
        auto back = route_lid(from, sim(sm_port_).info.lid);
        if (!back || *back != sm_port_) {
            ++counters_.dropped_route;
            return true;
        }
    }

    if (lose_answer || lose(loss_.answer)) {
        ++counters_.lost_answers;
        lost(smp);
        return true;
    }

    mad::RawReceive r;
    r.smp = mad::make_get_resp(smp, a.data, a.status);
    if (dr) {
        // As it reaches the SM after the return trip (IBA 14.2.2.3).
        auto b = r.smp.bytes();
        b[off_hop_pointer] = 0;
        for (std::size_t i = 1; i <= smp.hop_count(); ++i) b[off_return_path + i] = return_path[i];
    }
    r.length = truncate ? 100 : mad::mad_size;
    enqueue(std::move(r));
    ++counters_.answered;
    if (a.status) ++counters_.bad_status;
    return true;
}

mad::Smp FakeFabric::pma(const mad::Smp& req, topology::PortRef at)
{
    namespace perf = mad::perf;
    mad::Smp resp = req;
    resp.set_method(static_cast<std::uint8_t>(mad::Method::get_resp));
    auto data = perf::attribute_data(resp);
    const bool sw = fabric_.node(at.node).is_switch();
    const auto select = data[1];
    // A CA's PMA counts only the port the MAD came in by; a switch's any.
    const bool bad_port = sw ? select > fabric_.node(at.node).num_ports() : select != at.port.value();
    const std::pair<std::uint32_t, std::uint8_t> key{at.node.value, select};
    switch (req.attr_id()) {
    case perf::attr::class_port_info: {
        perf::ClassPortInfo cpi;
        cpi.capability_mask = pma_capabilities_;
        std::fill(data.begin(), data.end(), 0);
        perf::encode(cpi, data);
        break;
    }
    case perf::attr::port_counters: {
        if (bad_port) {
            resp.set_status(fake_status::invalid_value);
            break;
        }
        auto& pc = pma_counters_[key];
        if (req.method() == static_cast<std::uint8_t>(mad::Method::set)) {
            const auto asked = perf::decode_port_counters(perf::attribute_data(req));
            const auto m = asked ? asked->counter_select : 0;
            ++counters_.pma_clears;
            if (m & perf::select::symbol_errors) pc.symbol_errors = 0;
            if (m & perf::select::link_error_recovery) pc.link_error_recovery = 0;
            if (m & perf::select::link_downed) pc.link_downed = 0;
            if (m & perf::select::rcv_errors) pc.rcv_errors = 0;
            if (m & perf::select::rcv_remote_physical_errors) pc.rcv_remote_physical_errors = 0;
            if (m & perf::select::rcv_switch_relay_errors) pc.rcv_switch_relay_errors = 0;
            if (m & perf::select::xmit_discards) pc.xmit_discards = 0;
            if (m & perf::select::xmit_constraint_errors) pc.xmit_constraint_errors = 0;
            if (m & perf::select::rcv_constraint_errors) pc.rcv_constraint_errors = 0;
            if (m & perf::select::local_link_integrity_errors) pc.local_link_integrity_errors = 0;
            if (m & perf::select::excessive_buffer_overrun_errors) pc.excessive_buffer_overrun_errors = 0;
            if (m & perf::select::vl15_dropped) pc.vl15_dropped = 0;
        }
        perf::PortCounters out = pc;
        out.port_select = select;
        perf::encode(out, data);
        break;
    }
    case perf::attr::port_counters_extended: {
        if (bad_port || !(pma_capabilities_ & (perf::cap::extended_width | perf::cap::extended_width_no_ietf))) {
            resp.set_status(bad_port ? fake_status::invalid_value : fake_status::attribute_unsupported);
            break;
        }
        perf::PortCountersExtended out = pma_extended_[key];
        out.port_select = select;
        perf::encode(out, data);
        break;
    }
    default:
        resp.set_status(fake_status::attribute_unsupported);
    }
    return resp;
}

void FakeFabric::set_port_counters(topology::PortRef p, const mad::perf::PortCounters& pc)
{
    pma_counters_[{p.node.value, p.port.value()}] = pc;
}

void FakeFabric::set_port_counters_extended(topology::PortRef p, const mad::perf::PortCountersExtended& pc)
{
    pma_extended_[{p.node.value, p.port.value()}] = pc;
}

mad::perf::PortCounters FakeFabric::port_counters(topology::PortRef p) const
{
    const auto it = pma_counters_.find({p.node.value, p.port.value()});
    return it == pma_counters_.end() ? mad::perf::PortCounters{} : it->second;
}

bool FakeFabric::send_response(const mad::Smp& smp, const mad::RawReceive&)
{
    ++counters_.responses_from_sm;
    if (smp.method() == static_cast<std::uint8_t>(mad::Method::trap_repress)) {
        repress(smp);
        return true;
    }
    if (to_sm_.erase(static_cast<std::uint32_t>(smp.tid())) != 0) {
        mad::RawReceive r;
        r.smp = smp;
        if (smp.directed_route()) r.smp.bytes()[off_hop_pointer] = 0;
        r.length = mad::mad_size;
        enqueue(std::move(r));
        return true;
    }
    responses_.push_back(smp);
    return true;
}

void FakeFabric::deliver(mad::RawReceive r) { enqueue(std::move(r)); }

// PortInfo CapabilityMask bit 1 (IsSM).
constexpr std::uint32_t cap_is_sm = 1u << 1;

void FakeFabric::add_remote_sm(PortRef port, mad::SmInfo info)
{
    if (fabric_.node(port.node).is_switch() || port == sm_port_)
        throw std::invalid_argument("add_remote_sm: not a CA port other than the SM's");
    sim(port).info.capability_mask |= cap_is_sm;
    remote_sms_[port] = info;
}

void FakeFabric::set_remote_sm_state(PortRef port, mad::SmState state)
{
    if (auto it = remote_sms_.find(port); it != remote_sms_.end() && it->second) it->second->sm_state = state;
}

void FakeFabric::remove_remote_sm(PortRef port)
{
    if (auto it = remote_sms_.find(port); it != remote_sms_.end()) it->second.reset();
}

void FakeFabric::lose_answer_next(Guid node, unsigned count, std::uint16_t attr)
{
    const auto id = fabric_.find_node(node);
    if (!id) throw std::invalid_argument("FakeFabric: no node " + node.str());
    if (count) nodes_.at(id->value).faults.push_back(Fault{attr, count, 0, true});
}

void FakeFabric::garble_next(Guid node, unsigned count, std::uint16_t attr)
{
    const auto id = fabric_.find_node(node);
    if (!id) throw std::invalid_argument("FakeFabric: no node " + node.str());
    Fault f{attr, count, 0};
    f.garble = true;
    if (count) nodes_.at(id->value).faults.push_back(f);
}

void FakeFabric::truncate_next(Guid node, unsigned count, std::uint16_t attr)
{
    const auto id = fabric_.find_node(node);
    if (!id) throw std::invalid_argument("FakeFabric: no node " + node.str());
    Fault f{attr, count, 0};
    f.truncate = true;
    if (count) nodes_.at(id->value).faults.push_back(f);
}

void FakeFabric::set_loss(FakeLoss loss)
{
    loss_ = loss;
    rng_.seed(loss.seed);
}

bool FakeFabric::lose(double probability)
{
    if (probability <= 0) return false;
    return std::uniform_real_distribution<double>(0, 1)(rng_) < probability;
}

void FakeFabric::lost(const mad::Smp& request)
{
    if (!loss_.reported) return;
    mad::RawReceive r;
    r.smp = request;
    r.length = mad::mad_size;
    r.umad_status = 110;
    enqueue(std::move(r));
}

// ---------------------------------------------------------------- routing

bool FakeFabric::linked(PortRef p, mad::PortState min) const
{
    const auto r = fabric_.remote(p);
    return r && at_least(sim(p).info.port_state, min) && at_least(sim(*r).info.port_state, min);
}

bool FakeFabric::owns_lid(PortRef p, Lid lid) const
{
    const PortRef owner = fabric_.node(p.node).is_switch() ? PortRef{p.node, PortNum(0)} : p;
    const auto& pi = sim(owner).info;
    if (!pi.lid) return false;
    const unsigned base = pi.lid.value();
    return lid.value() >= base && lid.value() < base + (1u << pi.lmc);
}

std::optional<FakeFabric::Delivery> FakeFabric::route_dr(const mad::Smp& smp,
                                                         std::array<std::uint8_t, 64>& return_path) const
{
    const std::size_t hops = smp.hop_count();
    if (hops > DrPath::max_hops) return std::nullopt;
    PortRef cur = sm_port_;
    for (std::size_t i = 1; i <= hops; ++i) {
        const auto& node = fabric_.node(cur.node);
        const std::uint8_t out = smp.initial_path(i);
        // Past the first hop only switches forward (IBA C14-9:2); the first
        // hop leaves by the port the SM sent on (C14-9:1).
        if (i > 1 && !node.is_switch()) return std::nullopt;
        if (i == 1 && out != sm_port_.port.value()) return std::nullopt;
        if (out == 0 || out > node.num_ports()) return std::nullopt;
        const PortRef exit{cur.node, PortNum(out)};
        if (!linked(exit, mad::PortState::init)) return std::nullopt;
        cur = *fabric_.remote(exit);
        return_path[i] = cur.port.value();
    }
    return Delivery{cur};
}

std::optional<PortRef> FakeFabric::route_lid(PortRef from, Lid dlid) const
{
    if (!dlid.valid_unicast()) return std::nullopt;
    PortRef cur = from;
    if (!fabric_.node(cur.node).is_switch()) {
        if (owns_lid(cur, dlid)) return cur;
        if (!linked(cur, mad::PortState::active)) return std::nullopt;
        cur = *fabric_.remote(cur);
    }
    // A loop in the tables ends when the hop limit does, as a packet's life does.
    for (unsigned hop = 0; hop <= DrPath::max_hops; ++hop) {
        const auto& node = fabric_.node(cur.node);
        if (owns_lid(cur, dlid)) return cur;
        if (!node.is_switch()) return std::nullopt;
        const auto& s = nodes_.at(cur.node.value);
        if (dlid.value() > s.sw->linear_fdb_top || dlid.value() >= s.lft.size()) return std::nullopt;
        const std::uint8_t out = s.lft[dlid.value()];
        if (out == 0 || out > node.num_ports()) return std::nullopt;
        const PortRef exit{cur.node, PortNum(out)};
        if (!linked(exit, mad::PortState::active)) return std::nullopt;
        cur = *fabric_.remote(exit);
    }
    return std::nullopt;
}

// ---------------------------------------------------------------- attributes

std::optional<FakeFabric::Fault> FakeFabric::take_fault(NodeId node, const mad::Smp& smp)
{
    auto& faults = nodes_.at(node.value).faults;
    const auto attr = smp.attr_id();
    const bool set = smp.method() == static_cast<std::uint8_t>(mad::Method::set);
    for (auto it = faults.begin(); it != faults.end(); ++it) {
        if (it->attr && *it->attr != attr) continue;
        if ((it->lose_answer || it->sets_only) && !set) continue;
        Fault f = *it;
        if (--it->count == 0) faults.erase(it);
        return f;
    }
    return std::nullopt;
}

FakeFabric::Answer FakeFabric::handle(const mad::Smp& req, Delivery d)
{
    const auto method = req.method();
    if (method != static_cast<std::uint8_t>(mad::Method::get) && method != static_cast<std::uint8_t>(mad::Method::set))
        return Answer{fake_status::method_unsupported, {}};
    const bool set = method == static_cast<std::uint8_t>(mad::Method::set);
    switch (req.attr_id()) {
    case mad::attr::node_info: {
        auto a = node_info(d.at);
        if (set) a.status = fake_status::attribute_unsupported;
        return a;
    }
    case mad::attr::node_description: {
        Answer a{set ? fake_status::attribute_unsupported : std::uint16_t{0},
                 encoded(mad::NodeDescription{fabric_.node(d.at.node).description})};
        return a;
    }
    case mad::attr::port_info: return port_info(req, d.at);
    case mad::attr::switch_info: return switch_info(req, d.at.node);
    case mad::attr::linear_forwarding_table: return lft(req, d.at.node);
    case mad::attr::sl2vl_table: return sl2vl(req, d.at);
    case mad::attr::vl_arbitration: return vl_arb(req, d.at);
    case mad::attr_pkey_table: return pkey_table(req, d.at);
    case mad::attr_multicast_forwarding_table: return mft(req, d.at.node);
    default: return Answer{fake_status::attribute_unsupported, {}};
    }
}

FakeFabric::Answer FakeFabric::node_info(PortRef at) const
{
    const auto& n = fabric_.node(at.node);
    mad::NodeInfo ni;
    ni.node_type = n.is_switch() ? mad::NodeKind::switch_node
                                 : (n.type == topology::NodeType::router ? mad::NodeKind::router : mad::NodeKind::ca);
    ni.num_ports = n.num_ports();
    ni.system_image_guid = n.system_guid;
    ni.node_guid = n.guid;
    ni.port_guid = n.is_switch() ? n.guid : n.port(at.port).guid;
    ni.partition_cap = 64;
    ni.device_id = n.device_id;
    ni.revision = n.revision;
    ni.local_port_num = at.port;
    ni.vendor_id = n.vendor_id;
    return Answer{0, encoded(ni)};
}

FakeFabric::Answer FakeFabric::port_info(const mad::Smp& req, PortRef at)
{
    const auto& node = fabric_.node(at.node);
    const bool sw = node.is_switch();
    const bool set = req.method() == static_cast<std::uint8_t>(mad::Method::set);
    const std::uint32_t mod = req.attr_mod() & 0x7fffffffu;
    const bool sm_supports_ext = (req.attr_mod() & 0x80000000u) != 0;
    auto reply = [&](PortRef p, std::uint16_t status) {
        mad::PortInfo pi = answered(p, sm_supports_ext);
        pi.local_port_num = at.port;
        return Answer{status, encoded(pi)};
    };
    if (mod > node.num_ports() || (sm_supports_ext && nodes_.at(at.node.value).plain_port_info))
        return reply(at, fake_status::invalid_value);
    PortNum pn(static_cast<std::uint8_t>(mod));
    // A CA answers for the port the SMP came in by (IBA 14.2.5.6: 0 means
    // that port); like ibsim it reports its other ports but sets only that one.
    if (!sw && pn.value() == 0) pn = at.port;
    const PortRef target{at.node, pn};
    if (!set) return reply(target, 0);
    if (!sw && pn != at.port) return reply(target, fake_status::invalid_value);

    const auto d = mad::decode_port_info(req.data());
    if (!d) return reply(target, fake_status::invalid_value);
    mad::PortInfo next = sim(target).info;
    if (!sw || pn.value() == 0) {
        next.lid = d->lid;
        next.lmc = d->lmc;
        next.master_sm_lid = d->master_sm_lid;
        next.master_sm_sl = d->master_sm_sl;
        next.gid_prefix = d->gid_prefix;
        next.subnet_timeout = d->subnet_timeout;
        next.mkey = d->mkey;
        next.mkey_protect_bits = d->mkey_protect_bits;
        next.mkey_lease_period = d->mkey_lease_period;
        next.mkey_violations = d->mkey_violations;
    }
    if (d->operational_vls != 0) {
        if (d->operational_vls > next.vl_cap) return reply(target, fake_status::invalid_value);
        next.operational_vls = d->operational_vls;
    }
    if (!nodes_.at(at.node.value).drops_vl_high_limit) next.vl_high_limit = d->vl_high_limit;
    if (d->neighbor_mtu != 0) {
        if (d->neighbor_mtu > next.mtu_cap) return reply(target, fake_status::invalid_value);
        next.neighbor_mtu = d->neighbor_mtu;
    }
    if (sw && pn.value() != 0) {
        next.partition_enforcement_inbound = d->partition_enforcement_inbound;
        next.partition_enforcement_outbound = d->partition_enforcement_outbound;
    }
    const auto remote = fabric_.remote(target);
    const auto far_state = remote ? sim(*remote).info.port_state : mad::PortState::down;
    bool retrain = false;
    switch (d->port_state) {
    case mad::PortState::no_change: break;
    case mad::PortState::down:
        // The link goes down and trains again: both ends INIT (ibsim).
        retrain = remote.has_value();
        break;
    case mad::PortState::init: return reply(target, fake_status::invalid_value);
    case mad::PortState::armed:
        if (next.port_state != mad::PortState::init || !remote || !at_least(far_state, mad::PortState::init))
            return reply(target, fake_status::invalid_value);
        next.port_state = mad::PortState::armed;
        break;
    case mad::PortState::active:
        if (next.port_state != mad::PortState::armed || !remote || !at_least(far_state, mad::PortState::armed))
            return reply(target, fake_status::invalid_value);
        next.port_state = mad::PortState::active;
        break;
    }
    // PortPhysicalState (0: no change): Disabled takes the link down at
    // both ends as a pulled cable would, the far switch noticing; Polling
    // on a disabled port trains the link again when its far end is free.
    if (d->port_phys_state == phys_disabled && sw && pn.value() != 0) {
        if (remote) {
            sim(target).info = next;
            unlink(target);
        }
        sim(target).info.port_phys_state = phys_disabled;
        return reply(target, 0);
    }
    if (d->port_phys_state == phys_polling && sim(target).info.port_phys_state == phys_disabled) {
        sim(target).info = next;
        sim(target).info.port_phys_state = phys_polling;
        const auto prev = sim(target).previous;
        if (!remote && prev && !fabric_.remote(*prev) && sim(*prev).previous == target) link(target, *prev);
        return reply(target, 0);
    }
    if (retrain) {
        next.port_state = mad::PortState::init;
        sim(*remote).info.port_state = mad::PortState::init;
        // IBA 14.2.5.4: a Set does not raise the local PortStateChange; the
        // far switch sees its port go down and up.
        port_state_changed(remote->node);
    }
    sim(target).info = next;
    return reply(target, 0);
}

void FakeFabric::set_speed(NodeId node, FakeSpeed speed) { nodes_.at(node.value).speed = speed; }

mad::PortInfo FakeFabric::answered(PortRef p, bool sm_supports_ext) const
{
    mad::PortInfo pi = sim(p).info;
    const FakeSpeed mine = nodes_.at(p.node.value).speed;
    if (mine == FakeSpeed::qdr) return pi;
    const bool sw = fabric_.node(p.node).is_switch();
    if (!sw || p.port.value() == 0) pi.capability_mask |= 0x4000; // IsExtendedSpeedsSupported
    pi.capability_mask2 |= 0x0010 | 0x0020 | 0x0400;               // 2x, HDR, NDR
    if (mine == FakeSpeed::xdr) pi.capability_mask2 |= 0x0800 | 0x1000; // ExtendedSpeeds2, XDR
    pi.link_width_supported |= 16;
    pi.link_width_enabled |= 16;
    if (!sm_supports_ext) return pi;
    pi.link_speed_ext_supported = 0xf; // FDR, EDR, HDR, NDR
    pi.link_speed_ext_enabled = 0xf;
    if (mine == FakeSpeed::xdr) {
        pi.link_speed_ext_supported2 = 1;
        pi.link_speed_ext_enabled2 = 1;
    }
    const auto far = fabric_.remote(p);
    if (far && at_least(pi.port_state, mad::PortState::init)) {
        const FakeSpeed theirs = nodes_.at(far->node.value).speed;
        const FakeSpeed common = std::min(mine, theirs);
        if (common == FakeSpeed::ndr) pi.link_speed_ext_active = 8;
        if (common == FakeSpeed::xdr) pi.link_speed_ext_active2 = 1;
    }
    return pi;
}

FakeFabric::Answer FakeFabric::switch_info(const mad::Smp& req, NodeId node)
{
    auto& s = nodes_.at(node.value);
    if (!s.sw) return Answer{fake_status::attribute_unsupported, {}};
    if (req.method() == static_cast<std::uint8_t>(mad::Method::set)) {
        const auto d = mad::decode_switch_info(req.data());
        if (!d || d->linear_fdb_top >= s.sw->linear_fdb_cap) return Answer{fake_status::invalid_value, encoded(*s.sw)};
        s.sw->linear_fdb_top = d->linear_fdb_top;
        s.sw->life_time_value = d->life_time_value & 0x1f;
        // Cleared by writing 1; writing 0 leaves it (IBA 14.2.5.4).
        if (d->port_state_change) s.sw->port_state_change = false;
    }
    return Answer{0, encoded(*s.sw)};
}

FakeFabric::Answer FakeFabric::lft(const mad::Smp& req, NodeId node)
{
    auto& s = nodes_.at(node.value);
    if (!s.sw) return Answer{fake_status::attribute_unsupported, {}};
    const std::size_t block = req.attr_mod();
    const std::size_t first = block * mad::lft_block_size;
    if (first + mad::lft_block_size > s.sw->linear_fdb_cap) return Answer{fake_status::invalid_value, {}};
    if (req.method() == static_cast<std::uint8_t>(mad::Method::set)) {
        const auto d = mad::decode_linear_forwarding_table(req.data());
        if (!d) return Answer{fake_status::invalid_value, {}};
        if (s.lft.size() < first + mad::lft_block_size) s.lft.resize(first + mad::lft_block_size, mad::lft_no_route);
        std::copy(d->ports.begin(), d->ports.end(), s.lft.begin() + static_cast<std::ptrdiff_t>(first));
    }
    mad::LinearForwardingTable t;
    for (std::size_t i = 0; i < mad::lft_block_size; ++i)
        t.ports[i] = first + i < s.lft.size() ? s.lft[first + i] : mad::lft_no_route;
    return Answer{0, encoded(t)};
}

// 64 keys per port (NodeInfo PartitionCap 64, SwitchInfo
// PartitionEnforcementCap 64): blocks 0 and 1; a switch's port is in the
// modifier's bits 16..23, a CA answers for the port the SMP came in by.
FakeFabric::Answer FakeFabric::pkey_table(const mad::Smp& req, PortRef at)
{
    const std::uint32_t mod = req.attr_mod();
    const std::size_t block = mod & 0xffff;
    PortRef port = at;
    if (fabric_.node(at.node).is_switch()) {
        const std::size_t p = (mod >> 16) & 0xff;
        if (p > fabric_.node(at.node).num_ports()) return Answer{fake_status::invalid_value, {}};
        port = PortRef{at.node, PortNum(static_cast<std::uint8_t>(p))};
    }
    if (block >= 2) return Answer{fake_status::invalid_value, {}};
    auto& keys = sim(port).pkeys;
    if (req.method() == static_cast<std::uint8_t>(mad::Method::set)) {
        const auto t = mad::decode_pkey_table(req.data());
        if (!t) return Answer{fake_status::invalid_value, {}};
        std::copy(t->keys.begin(), t->keys.end(), keys.begin() + static_cast<std::ptrdiff_t>(block * 32));
    }
    mad::PKeyTable t;
    std::copy_n(keys.begin() + static_cast<std::ptrdiff_t>(block * 32), 32, t.keys.begin());
    return Answer{0, encoded(t)};
}

FakeFabric::Answer FakeFabric::mft(const mad::Smp& req, NodeId node)
{
    auto& s = nodes_.at(node.value);
    if (!s.sw) return Answer{fake_status::attribute_unsupported, {}};
    const std::uint32_t mod = req.attr_mod();
    const std::size_t block = mod & 0x1ff;
    const unsigned position = mod >> 28;
    if ((block + 1) * mad::mft_block_size > s.mft.size() || position * 16u > fabric_.node(node).num_ports())
        return Answer{fake_status::invalid_value, {}};
    if (req.method() == static_cast<std::uint8_t>(mad::Method::set)) {
        const auto t = mad::decode_multicast_forwarding_table(req.data());
        if (!t) return Answer{fake_status::invalid_value, {}};
        for (std::size_t i = 0; i < mad::mft_block_size; ++i) {
            auto& bits = s.mft[block * mad::mft_block_size + i].bits[position / 4];
            const unsigned shift = 16 * (position % 4);
            bits = (bits & ~(0xffffull << shift)) | (std::uint64_t{t->masks[i]} << shift);
        }
    }
    mad::MulticastForwardingTable t;
    for (std::size_t i = 0; i < mad::mft_block_size; ++i)
        t.masks[i] = s.mft[block * mad::mft_block_size + i].position(static_cast<std::uint8_t>(position));
    return Answer{0, encoded(t)};
}

mad::PKeyTable FakeFabric::pkey_table(PortRef p, std::size_t block) const
{
    mad::PKeyTable t;
    std::copy_n(sim(p).pkeys.begin() + static_cast<std::ptrdiff_t>(block * 32), 32, t.keys.begin());
    return t;
}

std::map<std::uint16_t, mcast::PortMask> FakeFabric::mft(NodeId sw) const
{
    std::map<std::uint16_t, mcast::PortMask> out;
    const auto& s = nodes_.at(sw.value);
    for (std::size_t i = 0; i < s.mft.size(); ++i)
        if (s.mft[i].any()) out[static_cast<std::uint16_t>(mad::multicast_lid_base + i)] = s.mft[i];
    return out;
}

FakeFabric::Answer FakeFabric::sl2vl(const mad::Smp& req, PortRef at)
{
    auto& s = nodes_.at(at.node.value);
    const bool set = req.method() == static_cast<std::uint8_t>(mad::Method::set);
    std::optional<mad::Sl2VlTable> in_table;
    if (set) {
        in_table = mad::decode_sl2vl_table(req.data());
        if (!in_table) return Answer{fake_status::invalid_value, {}};
    }
    if (!s.sw) {
        // One table per CA port, the modifier ignored.
        auto& t = sim(at).sl2vl;
        if (set) t = *in_table;
        return Answer{0, encoded(t)};
    }
    const std::uint32_t mod = req.attr_mod();
    const std::size_t n = s.ports.size(); // ports 0..num_ports
    const bool all_in = (mod & mad::sl2vl_all_input_ports) != 0;
    const bool all_out = (mod & mad::sl2vl_all_output_ports) != 0;
    const std::size_t in = (mod >> 8) & 0xff;
    const std::size_t out = mod & 0xff;
    if ((all_in || all_out) && (!set || !s.sw->optimized_sl2vl_mapping)) return Answer{fake_status::invalid_value, {}};
    if ((!all_in && in >= n) || (!all_out && out >= n)) return Answer{fake_status::invalid_value, {}};
    if (!set) return Answer{0, encoded(s.sl2vl[in * n + out])};
    const std::size_t in_lo = all_in ? 0 : in, in_hi = all_in ? n - 1 : in;
    const std::size_t out_lo = all_out ? 1 : out, out_hi = all_out ? n - 1 : out;
    for (std::size_t i = in_lo; i <= in_hi; ++i)
        for (std::size_t o = out_lo; o <= out_hi; ++o) s.sl2vl[i * n + o] = *in_table;
    return Answer{0, encoded(*in_table)};
}

FakeFabric::Answer FakeFabric::vl_arb(const mad::Smp& req, PortRef at)
{
    const auto& node = fabric_.node(at.node);
    const std::uint32_t mod = req.attr_mod();
    const unsigned block = mod >> 16;
    if (block < 1 || block > 4) return Answer{fake_status::invalid_value, {}};
    PortRef target = at; // CAs: the port the SMP came in by
    if (node.is_switch()) {
        const unsigned port = mod & 0xffff;
        if (port > node.num_ports()) return Answer{fake_status::invalid_value, {}};
        target = {at.node, PortNum(static_cast<std::uint8_t>(port))};
    }
    auto& sp = sim(target);
    const bool high = block >= 3;
    const unsigned cap = high ? sp.info.vl_arb_high_cap : sp.info.vl_arb_low_cap;
    const unsigned half = (block - 1) % 2;
    if (half * vlarb_entries >= cap) return Answer{fake_status::invalid_value, {}};
    auto& table = sp.vlarb[block - 1];
    if (req.method() == static_cast<std::uint8_t>(mad::Method::set)) {
        auto d = mad::decode_vl_arbitration(req.data());
        if (!d) return Answer{fake_status::invalid_value, {}};
        // Entries past the port's capability do not exist.
        const unsigned entries = std::min(vlarb_entries, cap - half * vlarb_entries);
        for (unsigned i = entries; i < vlarb_entries; ++i) d->entries[i] = {};
        table = *d;
    }
    return Answer{0, encoded(table)};
}

// ---------------------------------------------------------------- events

void FakeFabric::port_state_changed(NodeId node)
{
    auto& s = nodes_.at(node.value);
    if (s.sw) s.sw->port_state_change = true;
}

void FakeFabric::unlink(PortRef p)
{
    const auto r = fabric_.remote(p);
    if (!r) throw std::invalid_argument("FakeFabric::unlink: port is not cabled");
    sim(p).previous = *r;
    sim(*r).previous = p;
    fabric_.disconnect(p);
    for (const PortRef end : {p, *r}) {
        sim(end).info.port_state = mad::PortState::down;
        sim(end).info.port_phys_state = phys_polling;
        port_state_changed(end.node);
    }
    for (const NodeId n : {p.node, r->node})
        if (fabric_.node(n).is_switch()) raise_trap({n, PortNum(0)}, trap128(sim({n, PortNum(0)}).info.lid));
}

void FakeFabric::unlink_node(NodeId node)
{
    const auto& n = fabric_.node(node);
    for (std::uint8_t p = 1; p <= n.num_ports(); ++p)
        if (n.port(PortNum(p)).remote) unlink({node, PortNum(p)});
}

void FakeFabric::relink_node(NodeId node)
{
    const auto& n = fabric_.node(node);
    for (std::uint8_t p = 1; p <= n.num_ports(); ++p) {
        const PortRef here{node, PortNum(p)};
        const auto prev = sim(here).previous;
        if (prev && !n.port(PortNum(p)).remote && !fabric_.remote(*prev) && sim(*prev).previous == here) relink(here);
    }
}

void FakeFabric::relink(PortRef p)
{
    const auto prev = sim(p).previous;
    if (!prev || sim(*prev).previous != p) throw std::invalid_argument("FakeFabric::relink: no cable was pulled here");
    link(p, *prev);
}

void FakeFabric::link(PortRef a, PortRef b)
{
    fabric_.connect(a, b);
    for (const PortRef end : {a, b}) {
        sim(end).previous.reset();
        sim(end).info.port_state = mad::PortState::init;
        sim(end).info.port_phys_state = phys_link_up;
        port_state_changed(end.node);
    }
    for (const NodeId n : {a.node, b.node})
        if (fabric_.node(n).is_switch()) raise_trap({n, PortNum(0)}, trap128(sim({n, PortNum(0)}).info.lid));
}

NodeId FakeFabric::add_node(topology::NodeType type, Guid guid, std::uint8_t num_ports, std::string description)
{
    const NodeId id = fabric_.add_node(type, guid, num_ports, std::move(description));
    if (type != topology::NodeType::switch_node)
        for (std::uint8_t p = 1; p <= num_ports; ++p) fabric_.set_port_guid({id, PortNum(p)}, Guid(guid.value() + p));
    add_sim_node(id);
    return id;
}

bool FakeFabric::raise_trap(PortRef issuer, mad::Notice notice)
{
    if (fabric_.node(issuer.node).is_switch()) issuer.port = PortNum(0);
    const auto& pi = sim(issuer).info;
    if (!pi.lid || !pi.master_sm_lid) return false;
    if (!notice.issuer_lid) notice.issuer_lid = pi.lid;
    if (traps_.empty()) since_repeat_ = 0;
    traps_.push_back(PendingTrap{issuer, notice, next_trap_tid_++});
    ++counters_.traps_raised;
    send_trap(traps_.back());
    return true;
}

bool FakeFabric::mkey_check(const mad::Smp& smp, PortRef at, bool& hide_key)
{
    const PortRef checker = fabric_.node(at.node).is_switch() ? PortRef{at.node, PortNum(0)} : at;
    auto& pi = sim(checker).info;
    if (pi.mkey == 0 || smp.mkey() == pi.mkey) {
        lease_ends_.erase(checker); // a valid M_Key stops the lease timer
        return true;
    }
    const bool get = smp.method() == static_cast<std::uint8_t>(mad::Method::get);
    if (get && pi.mkey_protect_bits <= 1) {
        hide_key = pi.mkey_protect_bits == 1;
        return true;
    }
    if (pi.mkey_violations < 0xffff) ++pi.mkey_violations;
    if (pi.mkey_lease_period != 0 && !lease_ends_.count(checker))
        lease_ends_[checker] = clock_ + std::chrono::seconds(pi.mkey_lease_period);
    mad::BadMkeyDetails b;
    b.lid = smp.directed_route() ? Lid{} : sim(sm_port_).info.lid;
    b.dr_slid = smp.directed_route() ? smp.dr_slid() : Lid{};
    b.method = smp.method();
    b.attr_id = smp.attr_id();
    b.attr_mod = smp.attr_mod();
    b.mkey = smp.mkey();
    b.directed_route = smp.directed_route();
    if (smp.directed_route()) {
        // The way back to the sender: the ports the SMP entered by, last first.
        std::array<std::uint8_t, 64> back{};
        if (route_dr(smp, back)) {
            b.hop_count = smp.hop_count();
            b.truncated = smp.hop_count() > b.return_path.size();
            for (std::size_t i = 0; i < b.return_path.size() && i < smp.hop_count(); ++i)
                b.return_path[i] = back[i + 1];
        }
    }
    mad::Notice n;
    n.type = mad::notice_type::security;
    n.producer_type_or_vendor_id = fabric_.node(at.node).is_switch() ? 2 : 1;
    n.trap_number_or_device_id = mad::trap::bad_mkey;
    n.details = b;
    raise_trap(checker, n);
    return false;
}

void FakeFabric::set_port_mkey(PortRef p, std::uint64_t key, std::uint8_t protect_bits, std::uint16_t lease_s)
{
    if (fabric_.node(p.node).is_switch()) p.port = PortNum(0);
    auto& pi = sim(p).info;
    pi.mkey = key;
    pi.mkey_protect_bits = protect_bits;
    pi.mkey_lease_period = lease_s;
    lease_ends_.erase(p);
}

void FakeFabric::advance_clock(std::chrono::seconds by)
{
    clock_ += by;
    for (auto it = lease_ends_.begin(); it != lease_ends_.end();) {
        if (it->second > clock_) {
            ++it;
            continue;
        }
        sim(it->first).info.mkey_protect_bits = 0;
        ++counters_.lease_expiries;
        it = lease_ends_.erase(it);
    }
}

void FakeFabric::send_trap(const PendingTrap& t)
{
    const Lid sm_lid = sim(t.issuer).info.master_sm_lid;
    const auto dest = route_lid(t.issuer, sm_lid);
    if (!dest || *dest != sm_port_) {
        ++counters_.traps_undeliverable;
        return;
    }
    mad::RawReceive r;
    r.smp = mad::make_lid_request(mad::Method::trap, sm_lid, mad::attr::notice, 0, t.tid, encoded(t.notice));
    r.smp.set_mkey(sim(t.issuer).info.mkey); // a trap carries its port's M_Key (the repress echoes it)
    r.length = mad::mad_size;
    enqueue(std::move(r));
    ++counters_.traps_delivered;
}

std::size_t FakeFabric::tick()
{
    since_repeat_ = 0;
    const auto before = counters_.traps_delivered;
    for (const auto& t : traps_) send_trap(t);
    return counters_.traps_delivered - before;
}

void FakeFabric::repress(const mad::Smp& smp)
{
    const auto tid = static_cast<std::uint32_t>(smp.tid());
    auto it = std::find_if(traps_.begin(), traps_.end(),
                           [&](const PendingTrap& t) { return static_cast<std::uint32_t>(t.tid) == tid; });
    // The repress travels LID-routed to the issuer: without a route the
    // issuer never hears it and keeps repeating.
    std::optional<PortRef> reached;
    if (it != traps_.end()) reached = route_lid(sm_port_, sim(it->issuer).info.lid);
    // A switch is reached by any port; a CA only at the issuing port.
    const bool heard = reached && (fabric_.node(reached->node).is_switch() ? reached->node == it->issuer.node
                                                                           : *reached == it->issuer);
    if (!heard) {
        ++counters_.represses_unmatched;
        return;
    }
    traps_.erase(it);
    ++counters_.represses;
}

void FakeFabric::drop_next(Guid node, unsigned count, std::optional<std::uint16_t> attr)
{
    reject_next(node, count, 0, attr);
}

void FakeFabric::clear_faults(Guid node)
{
    const auto id = fabric_.find_node(node);
    if (!id) throw std::invalid_argument("FakeFabric: no node " + node.str());
    nodes_.at(id->value).faults.clear();
}

void FakeFabric::drop_sets_next(Guid node, unsigned count, std::uint16_t attr)
{
    const auto id = fabric_.find_node(node);
    if (!id) throw std::invalid_argument("FakeFabric: no node " + node.str());
    if (count) nodes_.at(id->value).faults.push_back(Fault{attr, count, 0, false, true});
}

void FakeFabric::reject_next(Guid node, unsigned count, std::uint16_t status, std::optional<std::uint16_t> attr)
{
    const auto id = fabric_.find_node(node);
    if (!id) throw std::invalid_argument("FakeFabric: no node " + node.str());
    if (count) nodes_.at(id->value).faults.push_back(Fault{attr, count, status});
}

// ---------------------------------------------------------------- inspection

mad::PortInfo FakeFabric::port_info(PortRef p) const { return sim(p).info; }

mad::SwitchInfo FakeFabric::switch_info(NodeId sw) const { return nodes_.at(sw.value).sw.value(); }

std::uint8_t FakeFabric::lft_entry(NodeId sw, Lid lid) const
{
    const auto& l = nodes_.at(sw.value).lft;
    return lid.value() < l.size() ? l[lid.value()] : mad::lft_no_route;
}

mad::Sl2VlTable FakeFabric::sl2vl(NodeId node, PortNum in, PortNum out) const
{
    const auto& s = nodes_.at(node.value);
    if (!s.sw) return sim({node, out}).sl2vl;
    return s.sl2vl.at(in.value() * s.ports.size() + out.value());
}

mad::VlArbitrationTable FakeFabric::vl_arbitration(PortRef p, mad::VlArbBlock block) const
{
    return sim(p).vlarb.at(static_cast<std::size_t>(block) - 1);
}

FabricReadback FakeFabric::read_back() const
{
    FabricReadback rb;
    rb.fabric = fabric_;
    rb.tables.engine = "read back";
    std::uint16_t top = 0;
    for (auto id : fabric_.node_ids()) {
        auto& node = rb.fabric.node(id);
        const auto& s = nodes_.at(id.value);
        for (std::size_t p = 0; p < node.ports.size(); ++p) {
            auto& port = node.ports[p];
            const auto pi = answered(PortRef{id, PortNum(static_cast<std::uint8_t>(p))}, true);
            port.lid = pi.lid;
            port.lmc = pi.lmc;
            port.state = static_cast<topology::PortState>(pi.port_state);
            port.phys_state = pi.port_phys_state;
            port.link_width_active = pi.link_width_active;
            port.link_speed_active = pi.link_speed_active;
            port.link_speed_ext_active = pi.link_speed_ext_active;
            port.link_speed_ext_active2 = pi.link_speed_ext_active2;
            port.vl_cap = pi.vl_cap;
            port.mtu_cap = pi.mtu_cap;
            port.capability_mask = pi.capability_mask;
            port.known = true;
        }
        if (!s.sw) continue;
        node.sw = topology::SwitchData{s.sw->linear_fdb_cap, s.sw->linear_fdb_top, s.sw->life_time_value,
                                       s.sw->enhanced_port0};
        routing::Lft lft;
        lft.port.assign(std::size_t{s.sw->linear_fdb_top} + 1, routing::no_route);
        for (std::size_t lid = 0; lid < lft.port.size() && lid < s.lft.size(); ++lid) lft.port[lid] = s.lft[lid];
        rb.tables.lfts[id] = std::move(lft);
        top = std::max(top, s.sw->linear_fdb_top);
    }
    rb.tables.linear_fdb_top = Lid(top);
    return rb;
}

} // namespace ibsm::test
