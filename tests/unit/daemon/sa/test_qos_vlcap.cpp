// A port whose VLCap is too low for the QoS policy, found at run time: the
// policy fit routing.max_vls at start, but a CA carrying VL0 only leaves no
// room for 2 VL bands. The bring-up says so ("qos policy NOT applied"),
// routes and programs as without a policy (SL2VL all on VL 0, the default
// arbitration, no VLHighLimit), and the SA answers every pair with the
// routing's SL: never a level SL whose VL some port cannot carry.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"
#include "../support/log_capture.h"
#include "../support/qos_policies.h"

#include "daemon/sa/sa_paths.h"
#include "daemon/sa/sa_services.h"
#include "daemon/sweep/bringup.h"
#include "mad/sa/records.h"
#include "mad/vl_arbitration.h"

#include <catch2/catch.hpp>

using namespace ibsm;
namespace sa = ibsm::mad::sa;
using topology::PortRef;

namespace {

std::uint8_t path_sl(const daemon::SubnetSnapshot& s, Lid from, Lid to)
{
    sa::SaHeader h;
    h.method = sa::method::get;
    h.attr_id = sa::attr::path_record;
    h.component_mask = sa::pr_mask::slid | sa::pr_mask::dlid;
    sa::PathRecord pr;
    pr.slid = from;
    pr.dlid = to;
    const auto bytes = sa::encode(pr);
    std::vector<std::uint8_t> data(sa::data_size, 0);
    std::copy(bytes.begin(), bytes.end(), data.begin());
    const auto a = daemon::sa_path_records(daemon::SaRequest{h, data, mad::GsiAddress{Lid(99)}, s});
    REQUIRE(a.status == sa::status::ok);
    REQUIRE(a.records.size() == 1);
    return sa::decode_path_record(a.records[0])->sl;
}

} // namespace

TEST_CASE("a CA whose VLCap is below the policy's bands: policy not applied, SA answers the routing's SLs",
          "[sa][qos]")
{
    test::LogCapture log;
    test::TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop{t.f};
    loop.fabric.set_vl_cap(PortRef{t.h3, PortNum(1)}, 1); // VL0 only
    auto settings = test::bringup_settings(dir.path, {"minhop"});
    settings.qos = test::two_band_policy();
    daemon::Bringup b(loop.transport, settings);
    const auto out = loop.run([&] { return b.sweep(); });
    INFO(out.reason);
    REQUIRE(out.up);
    INFO(log.text());
    CHECK(log.count("qos policy NOT applied") == 1);
    CHECK(log.count("ports carry 1 VL: 2 > 1") == 1);
    CHECK(log.count("(the ports' VLCap allows 1)") == 1);

    const auto snap = b.snapshot();
    REQUIRE(snap);
    CHECK_FALSE(snap->qos_policy);
    REQUIRE(snap->sl_vl);
    CHECK_FALSE(snap->sl_vl->from_policy);

    // Programmed as without a policy: one VL, every SL on VL 0 (SL 1 too),
    // no high-priority entry, VLHighLimit left at 0.
    for (auto h : {t.h1, t.h2}) {
        CHECK(loop.fabric.sl2vl(h, PortNum(1), PortNum(1)).vl == std::array<std::uint8_t, 16>{});
        CHECK(loop.fabric.vl_arbitration(PortRef{h, PortNum(1)}, mad::VlArbBlock::high_0_31).entries[0].weight == 0);
        CHECK(loop.fabric.port_info(PortRef{h, PortNum(1)}).vl_high_limit == 0);
    }
    CHECK(loop.fabric.sl2vl(t.s1, PortNum(1), PortNum(4)).vl[1] == 0);

    // Every pair matches the bulk rule; the answers keep the routing's SL.
    // The snapshot's NodeIds are discovery's: find the hosts by GUID.
    const auto lid = [&](Guid node) {
        const auto id = snap->found.fabric.find_node(node);
        REQUIRE(id);
        return snap->lids.lids.lids_of(PortRef{*id, PortNum(1)})->base;
    };
    const Lid h0 = lid(Guid(0x100)), h2 = lid(Guid(0x300)), h3 = lid(Guid(0x400));
    CHECK(path_sl(*snap, h0, h2) == 0);
    CHECK(path_sl(*snap, h2, h3) == 0);
    CHECK(path_sl(*snap, h3, h0) == 0);

    // The same policy with the port's VLCap restored applies: SL 1 (bulk).
    loop.fabric.set_vl_cap(PortRef{t.h3, PortNum(1)}, 4);
    REQUIRE(loop.run([&] { return b.sweep(); }).up);
    const auto applied = b.snapshot();
    REQUIRE(applied->qos_policy);
    CHECK(path_sl(*applied, h0, h2) == 1);
    CHECK(loop.fabric.sl2vl(t.h2, PortNum(1), PortNum(1)).vl[1] == 1);
}
