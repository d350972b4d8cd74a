// Our multicast rules against OpenSM's answers, captured on ibsim by
// tests/data/mcast/capture_opensm.sh (OpenSM 3.3.23 as SM and SA of
// tests/data/routing/2sw2path4hca.net; Hca3 and Hca4 join the IPoIB
// broadcast group the way the kernel's ipoib does): the same join answered
// by mcast::GroupTable encodes to OpenSM's record byte for byte; OpenSM's
// untrusted Get hides the member as ours does; and the tree our spanning
// tree builds for the two members is the one OpenSM programmed (dump_fts -M).
#include "mcast/groups.h"
#include "mcast/tree.h"

#include "mad/mc_member_record.h"
#include "topology/netfile_file.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#ifndef IBSM_MCAST_TEST_DATA_DIR
#error "IBSM_MCAST_TEST_DATA_DIR must name tests/data"
#endif

using namespace ibsm;
using namespace ibsm::mcast;
namespace m = mad::mcr_mask;

namespace {

std::string data(const std::string& rel) { return std::string(IBSM_MCAST_TEST_DATA_DIR) + "/" + rel; }

// The record (bytes 56..107 of the first MAD) of a capture.
std::vector<std::uint8_t> captured_record(const std::string& name)
{
    std::ifstream in(data("mcast/" + name));
    REQUIRE(in);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with("mad ")) continue;
        std::vector<std::uint8_t> mad;
        for (std::size_t i = 4; i + 1 < line.size(); i += 2)
            mad.push_back(static_cast<std::uint8_t>(std::stoul(line.substr(i, 2), nullptr, 16)));
        REQUIRE(mad.size() >= 56 + 52);
        CHECK(mad[44] == 0);
        CHECK(mad[45] == 7); // AttributeOffset (bytes 44..45): 56-byte records
        return {mad.begin() + 56, mad.begin() + 56 + 52};
    }
    FAIL(name << ": no MAD");
    return {};
}

std::vector<std::uint8_t> ours(const mad::McMemberRecord& r)
{
    std::array<std::uint8_t, mad::mc_member_record_size> b{};
    mad::encode(r, b);
    return {b.begin(), b.begin() + 52};
}

const mad::Gid128 bcast{0xff12401bffff0000ull, 0x00000000ffffffffull};
constexpr std::uint64_t prefix = 0xfe80000000000000ull;

// ibsim's ports here: 4x SDR (rate 3), MTU 2048 (4), default P_Key only.
struct Hosts {
    std::map<Guid, PortFacts> ports{{Guid(0x100007), PortFacts{Guid(0x100007), 4, 3, {0xffff}}},
                                    {Guid(0x10000a), PortFacts{Guid(0x10000a), 4, 3, {0xffff}}}};
    PortLookup lookup()
    {
        return [this](Guid g) -> const PortFacts* {
            auto it = ports.find(g);
            return it == ports.end() ? nullptr : &it->second;
        };
    }
};

mad::McMemberRecord ipoib_join(std::uint64_t guid)
{
    mad::McMemberRecord r;
    r.mgid = bcast;
    r.port_gid = mad::Gid128{prefix, guid};
    r.p_key = 0xffff;
    r.join_state = mad::join_state::full_member;
    return r;
}

} // namespace

TEST_CASE("OpenSM's answer to IPoIB's broadcast join decodes to the broadcast group")
{
    auto rec = mad::decode_mc_member_record(captured_record("opensm_join_hca3.txt"));
    REQUIRE(rec);
    CHECK(rec->mgid.str() == "ff12:401b:ffff:0000:0000:0000:ffff:ffff");
    CHECK(rec->port_gid == mad::Gid128{prefix, 0x100007});
    CHECK(rec->q_key == 0x0b1b);
    CHECK(rec->mlid == Lid(0xC000));
    CHECK(rec->mtu_selector == 2);
    CHECK(rec->mtu == 4);
    CHECK(rec->p_key == 0xffff);
    CHECK(rec->rate_selector == 2);
    CHECK(rec->rate == 3);
    CHECK(rec->packet_life_time == 18);
    CHECK(rec->scope == 2);
    CHECK(rec->join_state == mad::join_state::full_member);
    CHECK_FALSE(rec->proxy_join);
}

TEST_CASE("Our answers to the same joins and Get are OpenSM's, byte for byte")
{
    Hosts h;
    GroupTable t({});
    REQUIRE(t.create_permanent(ipoib_broadcast_params(0xffff)).status == SaStatus::ok);
    const std::uint64_t mask = m::mgid | m::port_gid | m::p_key | m::join_state; // 0x10083
    auto a3 = t.join(ipoib_join(0x100007), mask, Guid(0x100007), h.lookup());
    REQUIRE(a3.status == SaStatus::ok);
    CHECK(ours(a3.record) == captured_record("opensm_join_hca3.txt"));
    auto a4 = t.join(ipoib_join(0x10000a), mask, Guid(0x10000a), h.lookup());
    REQUIRE(a4.status == SaStatus::ok);
    CHECK(ours(a4.record) == captured_record("opensm_join_hca4.txt"));

    auto get = t.query(ipoib_join(0x100007), m::mgid | m::port_gid, Guid(0x100007), /*trusted=*/false, h.lookup());
    REQUIRE(get.size() == 1);
    CHECK(ours(get[0]) == captured_record("opensm_get_hca3.txt"));
}

TEST_CASE("Our tree for the two members is the one OpenSM programmed")
{
    topology::Fabric f = topology::load_net_file(data("routing/2sw2path4hca.net"));
    for (auto id : f.node_ids())
        for (auto& p : f.node(id).ports) p.known = true;
    // What OpenSM's switches hold for 0xC000 (dump_fts -M: an 'x' under
    // each port of the mask).
    std::map<std::string, std::set<unsigned>> held;
    std::ifstream in(data("mcast/opensm_dump_fts_M.txt"));
    REQUIRE(in);
    std::string line, sw;
    std::size_t col0 = 0;
    while (std::getline(in, line)) {
        if (line.starts_with("Multicast mlids")) sw = line.substr(line.rfind('(') + 1, line.rfind(')') - line.rfind('(') - 1);
        if (auto at = line.find("Ports: "); at != std::string::npos) col0 = at + 7;
        if (line.starts_with("0xc000"))
            for (std::size_t i = col0; i < line.size(); i += 2)
                if (line[i] == 'x') held[sw].insert(static_cast<unsigned>((i - col0) / 2));
    }
    REQUIRE(held.size() == 2);

    auto node = [&](const std::string& name) {
        for (auto id : f.node_ids())
            if (f.node(id).description == name) return id;
        FAIL("no node " << name);
        return topology::NodeId{};
    };
    const std::vector<TreeMember> members{{topology::PortRef{node("Hca3"), PortNum(1)}, true},
                                          {topology::PortRef{node("Hca4"), PortNum(1)}, true}};
    const Tree tree = spanning_tree(f, members);
    REQUIRE(tree.masks.size() == 2);
    for (const auto& [id, mask] : tree.masks) {
        std::set<unsigned> ports;
        for (unsigned p = 0; p <= f.node(id).num_ports(); ++p)
            if (mask.test(static_cast<std::uint8_t>(p))) ports.insert(p);
        INFO(f.node(id).description);
        CHECK(ports == held.at(f.node(id).description));
    }
}
