// The one SL/VL budget: the routing's share, the refusals with their
// numbers, and the combined tables, every value worked out by hand in the
// comments.
#include "qos/sl_vl_plan.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using config::QosVlArbEntry;

namespace {

config::QosSl2Vl table(std::initializer_list<std::pair<unsigned, unsigned>> sl_to_vl)
{
    config::QosSl2Vl t{};
    for (auto [sl, vl] : sl_to_vl) t[sl] = static_cast<std::uint8_t>(vl);
    return t;
}

config::QosLevel level(const char* name, unsigned sl)
{
    config::QosLevel l;
    l.name = name;
    l.sl = static_cast<std::uint8_t>(sl);
    return l;
}

// Four levels on SLs 0, 2, 5 (three classes); SLs 2 and 5 on QoS VL 1 (two bands).
config::QosConfig two_bands()
{
    config::QosConfig q;
    q.enabled = true;
    q.port_groups.resize(2);
    q.port_groups[0].name = "storage";
    q.port_groups[1].name = "gpu";
    q.levels = {level("bulk", 2), level("mpi", 5), level("backup", 2), level("control", 0)};
    q.sl2vl_ca = table({{2, 1}, {5, 1}});
    q.sl2vl_switch = table({{2, 1}, {5, 1}});
    q.vlarb_ca = config::QosVlArb{{{1, 255}}, {{0, 32}, {1, 16}}, 4};
    q.sl2vl_groups = {{"gpu", table({{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}, {6, 1}, {7, 1}, {8, 1}, {9, 1},
                                     {10, 1}, {11, 1}, {12, 1}, {13, 1}, {14, 1}, {15, 1}})}};
    q.vlarb_groups = {{"storage", config::QosVlArb{{}, {{1, 100}}, 0}}};
    return q;
}

qos::SlVlPlan plan_of(const config::QosConfig& q, unsigned layers, unsigned max_vls)
{
    auto r = qos::plan_sl_vl(q, layers, max_vls);
    if (auto* why = std::get_if<std::string>(&r)) FAIL("plan refused: " << *why);
    return std::get<qos::SlVlPlan>(r);
}

std::string refusal_of(const config::QosConfig& q, unsigned layers, unsigned max_vls)
{
    auto r = qos::plan_sl_vl(q, layers, max_vls);
    REQUIRE(std::holds_alternative<std::string>(r));
    return std::get<std::string>(r);
}

std::vector<unsigned> sl2vl(const std::array<std::uint8_t, 16>& t)
{
    return {t.begin(), t.end()};
}

} // namespace

TEST_CASE("without a policy the routing gets every VL and the tables are today's", "[qos]")
{
    const config::QosConfig none;
    std::string why;
    auto b = qos::routing_budget(none, 8, &why);
    REQUIRE(b);
    CHECK(b->layers == 8);
    CHECK(b->bands == 1);
    CHECK(b->classes == 1);

    const auto p = plan_of(none, 3, 8);
    CHECK_FALSE(p.from_policy);
    CHECK(p.layers == 3);
    CHECK(p.vls == 3);
    // Identity over the routing's three VLs.
    CHECK(sl2vl(p.ca.sl2vl) == std::vector<unsigned>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0});
    CHECK(p.switch_external.sl2vl == p.ca.sl2vl);
    CHECK(p.switch_port0.sl2vl == p.ca.sl2vl);
    // Every VL the ports carry weight 64 in the low table, none high.
    REQUIRE(p.ca.low.size() == 8);
    for (unsigned vl = 0; vl < 8; ++vl) CHECK(p.ca.low[vl] == QosVlArbEntry{static_cast<std::uint8_t>(vl), 64});
    CHECK(p.ca.high.empty());
    CHECK(p.ca.high_limit == 0);
    CHECK(p.switch_port0.low.empty());
    CHECK(p.ca_groups.empty());
    // The gate's masks are the identity: routing SL l on VL l.
    CHECK(p.vl_mask_of_routing_sl[0] == 0b001);
    CHECK(p.vl_mask_of_routing_sl[2] == 0b100);
    // Hosts keep the routing's SL.
    CHECK(p.host_sl(std::nullopt, 2) == 2);
}

TEST_CASE("the routing's share: bands of VLs and classes of SLs", "[qos]")
{
    std::string why;
    auto b = qos::routing_budget(two_bands(), 8, &why);
    REQUIRE(b);
    CHECK(b->bands == 2);   // QoS VLs 0 and 1
    CHECK(b->classes == 3); // SLs 0, 2, 5
    CHECK(b->levels == 4);
    CHECK(b->layers == 4); // min(8 / 2, 16 / 3 = 5)
    CHECK(b->explain == "qos has 4 levels in 3 SL classes and 2 VL bands, ports carry 8 VLs: routing gets 4 layers");

    // Five layers need 10 VLs.
    CHECK(qos::budget_refusal("dfsssp", 5, *b, 8) ==
          "dfsssp needs 5 layers, qos has 4 levels in 3 SL classes and 2 VL bands, ports carry 8 VLs: 5 × 2 = 10 > 8");
    CHECK(refusal_of(two_bands(), 5, 8) == "the routing needs 5 layers, qos has 4 levels in 3 SL classes and 2 VL "
                                            "bands, ports carry 8 VLs: 5 × 2 = 10 > 8");
    // With 15 VLs the SLs run out first: min(15 / 2 = 7, 16 / 3 = 5).
    auto wide = qos::routing_budget(two_bands(), 15, &why);
    REQUIRE(wide);
    CHECK(wide->layers == 5);
    CHECK(qos::budget_refusal("dfsssp", 6, *wide, 15) ==
          "dfsssp needs 6 layers, qos has 4 levels in 3 SL classes and 2 VL bands: 6 × 3 = 18 SLs > 16");
}

TEST_CASE("a QoS VL the ports do not carry is refused before routing", "[qos]")
{
    auto q = two_bands();
    q.sl2vl_switch = table({{3, 9}});
    std::string why;
    CHECK_FALSE(qos::routing_budget(q, 8, &why));
    CHECK(why == "sl2vl.switch maps SL 3 to VL 9: qos has 4 levels in 3 SL classes and 10 VL bands, ports carry 8 "
                 "VLs: 10 > 8");
    CHECK(refusal_of(q, 1, 8) == why);
    // Ten VLs carry it, with one layer.
    auto b = qos::routing_budget(q, 10, &why);
    REQUIRE(b);
    CHECK(b->layers == 1);
}

TEST_CASE("two layers: SL = class * 2 + layer, VL = band * 2 + layer", "[qos]")
{
    const auto p = plan_of(two_bands(), 2, 8);
    CHECK(p.from_policy);
    CHECK(p.layers == 2);
    CHECK(p.vls == 4);
    CHECK(p.class_of_sl[0] == 0);
    CHECK(p.class_of_sl[2] == 1);
    CHECK(p.class_of_sl[5] == 2);
    // bulk (SL 2, class 1) on layer 1 -> SL 3; mpi (SL 5, class 2) on layer 0 -> SL 4.
    CHECK(p.host_sl(std::uint8_t{2}, 1) == 3);
    CHECK(p.host_sl(std::uint8_t{5}, 0) == 4);
    CHECK(p.host_sl(std::nullopt, 1) == 1);
    // SL 0,1: class 0 (band 0) -> VL 0,1; SL 2,3: class 1 (band 1) -> VL 2,3;
    // SL 4,5: class 2 (band 1) -> 2,3; SLs 6.. no class: class 0's VLs.
    const std::vector<unsigned> widened{0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
    CHECK(sl2vl(p.ca.sl2vl) == widened);
    CHECK(sl2vl(p.switch_external.sl2vl) == widened);
    // Port 0 has no table: every SL in band 0, the layer kept.
    CHECK(sl2vl(p.switch_port0.sl2vl) == std::vector<unsigned>{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1});
    // Layer 0 travels on VL 0 (class 0) and VL 2 (classes 1, 2); layer 1 on VLs 1 and 3.
    CHECK(p.vl_mask_of_routing_sl[0] == 0b0101);
    CHECK(p.vl_mask_of_routing_sl[1] == 0b1010);
    // VLArb: each band's entry once per layer, same weight.
    CHECK(p.ca.high == std::vector<QosVlArbEntry>{{2, 255}, {3, 255}});
    CHECK(p.ca.low == std::vector<QosVlArbEntry>{{0, 32}, {1, 32}, {2, 16}, {3, 16}});
    CHECK(p.ca.high_limit == 4);
    // No switch arbitration configured: every plan VL weight 64.
    CHECK(p.switch_external.low == std::vector<QosVlArbEntry>{{0, 64}, {1, 64}, {2, 64}, {3, 64}});
    CHECK(p.switch_external.high.empty());
    // Groups: storage (index 0) has its own arbitration, gpu (1) its own SL2VL.
    REQUIRE(p.ca_groups.size() == 2);
    CHECK(p.ca_groups[0].first == 0);
    CHECK(p.ca_groups[0].second.sl2vl == p.ca.sl2vl);
    CHECK(p.ca_groups[0].second.low == std::vector<QosVlArbEntry>{{2, 100}, {3, 100}});
    CHECK(p.ca_groups[0].second.high.empty());
    CHECK(p.ca_groups[1].first == 1);
    CHECK(sl2vl(p.ca_groups[1].second.sl2vl) ==
          std::vector<unsigned>{2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3});
    CHECK(p.ca_groups[1].second.low == p.ca.low);
}

TEST_CASE("one layer: the configured tables as written, hosts on the level's SL", "[qos]")
{
    const auto p = plan_of(two_bands(), 1, 8);
    CHECK(p.vls == 2);
    CHECK(p.host_sl(std::uint8_t{5}, 0) == 5);
    CHECK(p.host_sl(std::nullopt, 0) == 0);
    CHECK(p.ca.sl2vl == *two_bands().sl2vl_ca);
    CHECK(p.ca.low == std::vector<QosVlArbEntry>{{0, 32}, {1, 16}});
    // Routing SL 0 may carry SL 0 (VL 0), 2 and 5 (VL 1).
    CHECK(p.vl_mask_of_routing_sl[0] == 0b11);
}

TEST_CASE("the SLs run out: nine classes leave one layer", "[qos]")
{
    config::QosConfig q;
    q.enabled = true;
    for (unsigned sl = 1; sl <= 8; ++sl) q.levels.push_back(level("l", sl));
    std::string why;
    auto b = qos::routing_budget(q, 8, &why);
    REQUIRE(b);
    CHECK(b->classes == 9);
    CHECK(b->layers == 1); // 16 / 9
    CHECK(refusal_of(q, 2, 8) ==
          "the routing needs 2 layers, qos has 8 levels in 9 SL classes and 1 VL band: 2 × 9 = 18 SLs > 16");
}

TEST_CASE("an arbitration table widened past 64 entries is refused", "[qos]")
{
    config::QosConfig q;
    q.enabled = true;
    q.vlarb_ca = config::QosVlArb{};
    for (unsigned i = 0; i < 20; ++i) q.vlarb_ca->low.push_back({0, 8});
    CHECK(refusal_of(q, 4, 8) == "vlarb.ca low has 20 entries, 4 routing layers make 80 > 64");
    CHECK(plan_of(q, 3, 8).ca.low.size() == 60);
}
