// libFuzzer harness for the SA's receive path: every class-0x03 MAD goes to
// daemon::SaAgent with the handlers ibsmd registers (fabric records,
// PathRecord/MultiPathRecord, ServiceRecord, InformInfo), answering from a
// hand-built snapshot (2 switches, 4 CAs, LMC 1, routed LFTs).
//
// Input: records as fuzz_transport.cpp's: byte 0 flags (bit 0: the port
// reports a send failure), byte 1 length (0 = 256), then the MAD. RMPP
// timers run (a few ms of them) after the records.
//
// Checks: no crash/UB/leak; every MAD the SA sends is class 0x03 version 2
// with a response method (or Report/RMPP ABORT), to a LID some request came
// from or a subscriber's; a GetTable answer's segments carry the request's
// TID.
#include "daemon/sa/sa_agent.h"
#include "daemon/sa/sa_inform.h"
#include "daemon/sa/sa_paths.h"
#include "daemon/sa/sa_records.h"
#include "daemon/sa/sa_services.h"
#include "daemon/sa/sa_tables.h"
#include "mad/sa/sa_mad.h"
#include "mad/transport.h"

#include <boost/asio/io_context.hpp>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>
#include <set>

namespace {

using namespace ibsm;
namespace sa = ibsm::mad::sa;
using topology::NodeId;
using topology::PortRef;

class FuzzPort final : public mad::MadPort {
public:
    std::set<std::uint16_t> requesters;
    bool send(const mad::Smp&, Lid, std::uint32_t) override { return true; }
    std::optional<mad::RawReceive> try_receive() override { return std::nullopt; }
    int fd() const override { return -1; }
    bool pollable_by_reactor() const override { return false; }
    bool wait_readable(int) override { return false; }
    bool send_response(const mad::Smp&, const mad::RawReceive&) override { return true; }
    bool send_gsi(std::span<const std::uint8_t, mad::mad_size> mad, const mad::GsiAddress& to) override
    {
        const auto h = sa::decode_header(mad);
        if (!h || h->mgmt_class != sa::mgmt_class || h->class_version != sa::class_version) std::abort();
        if (!(h->method & 0x80) && h->method != sa::method::report) std::abort();
        if (h->method != sa::method::report && !requesters.contains(to.lid.value())) std::abort();
        return true;
    }
};

// H0 H1 - S1 = S2 - H2 H3 (two cables between the switches), LMC 1.
std::shared_ptr<daemon::SubnetSnapshot> make_snapshot()
{
    using topology::NodeType;
    auto s = std::make_shared<daemon::SubnetSnapshot>();
    auto& f = s->found.fabric;
    std::vector<NodeId> h;
    for (unsigned i = 0; i < 4; ++i) {
        h.push_back(f.add_node(NodeType::ca, Guid(0x100 * (i + 1)), 1, "H" + std::to_string(i)));
        f.set_port_guid(PortRef{h.back(), PortNum(1)}, Guid(0x100 * (i + 1) + 1));
    }
    const NodeId s1 = f.add_node(NodeType::switch_node, Guid(0x1000), 4, "S1");
    const NodeId s2 = f.add_node(NodeType::switch_node, Guid(0x2000), 4, "S2");
    f.connect({h[0], PortNum(1)}, {s1, PortNum(1)});
    f.connect({h[1], PortNum(1)}, {s1, PortNum(2)});
    f.connect({h[2], PortNum(1)}, {s2, PortNum(1)});
    f.connect({h[3], PortNum(1)}, {s2, PortNum(2)});
    f.connect({s1, PortNum(3)}, {s2, PortNum(3)});
    f.connect({s1, PortNum(4)}, {s2, PortNum(4)});
    for (auto& n : std::vector<NodeId>{h[0], h[1], h[2], h[3], s1, s2})
        for (auto& p : f.node(n).ports) p.mtu_cap = 4, p.link_width_active = 2, p.link_speed_active = 1;
    s->found.sm_port = PortRef{h[0], PortNum(1)};
    s->found.paths.resize(f.node_count());
    auto& lids = s->lids.lids;
    for (unsigned i = 0; i < 4; ++i) lids.assign(PortRef{h[i], PortNum(1)}, Lid(static_cast<std::uint16_t>(2 + 2 * i)), 1);
    lids.assign(PortRef{s1, PortNum(0)}, Lid(10), 0);
    lids.assign(PortRef{s2, PortNum(0)}, Lid(11), 0);
    s->lids.sm_lid = Lid(2);
    for (const auto& [port, range] : lids.entries()) {
        mad::PortInfo pi;
        pi.lid = range.base;
        pi.lmc = range.lmc;
        pi.gid_prefix = sa::default_gid_prefix;
        pi.port_state = mad::PortState::active;
        s->found.port_info[port] = pi;
    }
    s->found.switch_info[s1] = mad::SwitchInfo{};
    s->found.switch_info[s2] = mad::SwitchInfo{};
    auto t = std::make_shared<routing::RoutingTables>();
    t->linear_fdb_top = Lid(11);
    for (NodeId sw : {s1, s2}) {
        routing::Lft lft;
        lft.port.assign(12, routing::no_route);
        const bool first = sw == s1;
        for (unsigned l = 2; l <= 9; ++l) {
            const unsigned host = (l - 2) / 2;
            const bool local = first ? host < 2 : host >= 2;
            lft.port[l] = static_cast<std::uint8_t>(local ? 1 + host % 2 : 3 + l % 2);
        }
        lft.port[10] = first ? 0 : 3;
        lft.port[11] = first ? 3 : 0;
        t->lfts[sw] = lft;
    }
    s->tables = t;
    s->health = daemon::SubnetHealth::up;
    return s;
}

void quiet_logs()
{
    static const bool once = [] {
        auto logger = std::make_shared<spdlog::logger>("fuzz", std::make_shared<spdlog::sinks::null_sink_mt>());
        logger->set_level(spdlog::level::trace);
        spdlog::set_default_logger(logger);
        return true;
    }();
    (void)once;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    quiet_logs();
    static const auto snapshot = make_snapshot();
    boost::asio::io_context io;
    FuzzPort port;
    mad::Transport transport(io, port, mad::TransportOptions{});
    daemon::SaSettings settings;
    settings.rmpp_timeout = std::chrono::milliseconds(1);
    settings.report_timeout = std::chrono::milliseconds(1);
    daemon::SaAgent agent(io, transport, settings);
    daemon::register_fabric_records(agent, [] { return mad::SmInfo{Guid(0x101), 0, 1, 1, mad::SmState::master}; });
    daemon::register_path_records(agent);
    daemon::register_table_records(agent);
    daemon::ServiceRecords services;
    services.register_with(agent);
    daemon::InformRegistry inform(agent);
    inform.register_with(agent);
    agent.publish(snapshot);
    port.requesters = {2, 4, 6, 8, 10, 11, 99};

    std::span<const std::uint8_t> in(data, size);
    unsigned n_rec = 0;
    while (in.size() >= 2) {
        const std::uint8_t flags = in[0];
        const std::size_t want = in[1] == 0 ? mad::mad_size : in[1];
        in = in.subspan(2);
        const std::size_t n = std::min(want, in.size());
        mad::RawReceive r;
        r.smp = mad::Smp::from_bytes(in.first(n));
        r.length = n;
        r.umad_status = (flags & 0x01) ? 110 : 0;
        r.source_lid = Lid(static_cast<std::uint16_t>(2 + 2 * (n_rec++ % 4)));
        r.source_qpn = 1;
        in = in.subspan(n);
        agent.on_mad(r);
    }
    // A trap the subscribers may want, then the RMPP and Report timers.
    mad::Notice trap;
    trap.trap_number_or_device_id = 128;
    trap.issuer_lid = Lid(10);
    trap.details = mad::LinkStateChangeDetails{Lid(10)};
    inform.forward(trap);
    io.run_for(std::chrono::milliseconds(8));
    return 0;
}
