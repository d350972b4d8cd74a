// examples/qos.yaml parses, and its policy does what its comments say on a
// small fabric (so the example never rots).
#include "config/config.h"
#include "qos/qos_policy.h"

#include <catch2/catch.hpp>

using namespace ibsm;

namespace {

std::size_t level_of(const qos::QosPolicy& p, const config::QosConfig& c, Guid src, Guid dst,
                     std::optional<std::uint64_t> sid = {}, std::optional<std::uint16_t> pkey = {})
{
    const auto i = p.match(qos::Request{src, dst, sid, pkey, {}});
    REQUIRE(i);
    return c.levels[*i].sl;
}

} // namespace

TEST_CASE("examples/qos.yaml parses and sorts traffic as documented", "[qos][example]")
{
    const config::Config c = config::load_config_file(std::string(IBSMD_SOURCE_DIR) + "/examples/qos.yaml");
    const config::QosConfig& q = c.qos;
    REQUIRE(q.enabled);
    CHECK(q.port_groups.size() == 5);
    CHECK(q.levels.size() == 3);
    CHECK(q.rules.size() == 7);
    REQUIRE(q.sl2vl_ca);
    REQUIRE(q.vlarb_groups.size() == 1);

    const Guid stor(0x0002c90300a0b001), cn(0x0002c90300c0d001), cn2(0x0002c90300c0d101),
        mgmt(0x0002c90300e0f001), other(0x0002c90300f00001);
    const std::vector<qos::PortFacts> fabric{
        {stor, Guid(0x0002c90300a0b000), "stor01 HCA-1", false, {0xffff, 0x8010}},
        {cn, Guid(0x0002c90300c0d000), "cn0001 HCA-1", false, {0xffff, 0x0010}},
        {cn2, Guid(0x0002c90300c0d100), "cn0002 HCA-1", false, {0xffff}},
        {mgmt, Guid(0x0002c90300e0f000), "mgmt01 HCA-1", false, {0xffff}},
        {other, Guid(0x0002c90300f00000), "login01 HCA-1", false, {0xffff}},
    };
    const qos::QosPolicy p(q, fabric);
    CHECK(p.members(*p.group_index("storage")) == std::vector<Guid>{stor});
    CHECK(p.members(*p.group_index("storage_clients")) == std::vector<Guid>{stor, cn});

    CHECK(level_of(p, q, mgmt, stor) == 3);                  // management before storage
    CHECK(level_of(p, q, cn, stor, std::nullopt, 0x8010) == 1); // to storage in its partition
    CHECK(level_of(p, q, stor, cn) == 1);                    // from storage
    CHECK(level_of(p, q, other, other, 0x1000000000000042) == 1); // by service ID
    CHECK(level_of(p, q, cn, cn2) == 2);                     // MPI between compute nodes
    CHECK_FALSE(p.match(qos::Request{other, cn, {}, {}, {}})); // the routing's SL
}
