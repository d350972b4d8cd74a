// The MCMemberRecord rules of mcast::GroupTable, one spec rule per case,
// with the SA status the spec names for each refusal.
#include "mcast/groups.h"

#include "mcast/link_rates.h"

#include <catch2/catch.hpp>

#include <map>

using namespace ibsm;
using namespace ibsm::mcast;
using mad::Gid128;
using mad::McMemberRecord;
namespace m = mad::mcr_mask;
namespace js = mad::join_state;

namespace {

constexpr std::uint64_t prefix = 0xfe80000000000000ull;
constexpr std::uint64_t join_mask = m::mgid | m::port_gid | m::join_state;
constexpr std::uint64_t create_mask = join_mask | m::q_key | m::traffic_class | m::p_key | m::flow_label | m::sl;

struct Subnet {
    std::map<Guid, PortFacts> ports;
    PortLookup lookup()
    {
        return [this](Guid g) -> const PortFacts* {
            auto it = ports.find(g);
            return it == ports.end() ? nullptr : &it->second;
        };
    }
    void add(std::uint64_t guid, std::vector<std::uint16_t> pkeys = {0xffff}, std::uint8_t mtu = 4,
             std::uint8_t rate = 3)
    {
        ports[Guid(guid)] = PortFacts{Guid(guid), mtu, rate, std::move(pkeys)};
    }
};

McMemberRecord join_req(const Gid128& mgid, std::uint64_t port, std::uint8_t state = js::full_member)
{
    McMemberRecord r;
    r.mgid = mgid;
    r.port_gid = Gid128{prefix, port};
    r.join_state = state;
    return r;
}

McMemberRecord create_req(const Gid128& mgid, std::uint64_t port)
{
    McMemberRecord r = join_req(mgid, port);
    r.q_key = 0x1234;
    r.p_key = 0xffff;
    r.sl = 1;
    return r;
}

const Gid128 bcast{0xff12401bffff0000ull, 0x00000000ffffffffull};
const Gid128 app{0xff15000000000000ull, 0x42};

} // namespace

TEST_CASE("The IPoIB broadcast group of the default partition")
{
    const auto p = ipoib_broadcast_params(0xffff);
    CHECK(p.mgid.str() == "ff12:401b:ffff:0000:0000:0000:ffff:ffff");
    CHECK(p.q_key == 0x0b1b);
    CHECK(p.p_key == 0xffff);
    CHECK(p.mtu == 4);
    CHECK(p.rate == 3);
    GroupTable t({});
    auto o = t.create_permanent(p);
    REQUIRE(o.status == SaStatus::ok);
    CHECK(o.record.mlid == Lid(0xC000));
    CHECK(t.find(Lid(0xC000))->permanent);
    CHECK(t.create_permanent(p).status == SaStatus::req_invalid);
    CHECK(t.create_permanent(ipoib_broadcast_params(0x8001)).record.mlid == Lid(0xC001));
}

TEST_CASE("IPoIB-style joins of the broadcast group")
{
    Subnet s;
    s.add(0x11);
    s.add(0x12);
    GroupTable t({});
    t.create_permanent(ipoib_broadcast_params(0xffff));
    const auto v0 = t.version();
    // ipoib asks with MGID, PortGID, JoinState and the group's Q_Key/P_Key/SL.
    auto r = join_req(bcast, 0x11);
    r.q_key = 0x0b1b;
    r.p_key = 0xffff;
    auto o = t.join(r, join_mask | m::q_key | m::p_key | m::sl, Guid(0x11), s.lookup());
    REQUIRE(o.status == SaStatus::ok);
    CHECK(o.members_changed);
    CHECK_FALSE(o.created);
    CHECK(o.record.mlid == Lid(0xC000));
    CHECK(o.record.q_key == 0x0b1b);
    CHECK(o.record.mtu == 4);
    CHECK(o.record.mtu_selector == 2);
    CHECK(o.record.port_gid == Gid128{prefix, 0x11});
    CHECK(o.record.join_state == js::full_member);
    CHECK(t.version() > v0);
    // Joining again with another bit adds it; the same bit again changes nothing.
    auto again = t.join(join_req(bcast, 0x11, js::full_member), join_mask, Guid(0x11), s.lookup());
    CHECK(again.status == SaStatus::ok);
    CHECK_FALSE(again.members_changed);
    auto more = t.join(join_req(bcast, 0x11, js::send_only_non_member), join_mask, Guid(0x11), s.lookup());
    CHECK(more.record.join_state == (js::full_member | js::send_only_non_member));
    CHECK(t.find(bcast)->members.size() == 1);
}

TEST_CASE("Join refusals carry the spec's status")
{
    Subnet s;
    s.add(0x11);
    s.add(0x12, {0x8001});   // another partition only
    s.add(0x13, {0xffff}, 3); // MTU 1024 below the group's 2048
    s.add(0x14, {0xffff}, 4, 2); // 2.5 Gb/s below the group's 10
    GroupTable t({});
    t.create_permanent(ipoib_broadcast_params(0xffff));
    auto L = s.lookup();

    CHECK(t.join(join_req(bcast, 0x11), m::mgid | m::port_gid, Guid(0x11), L).status ==
          SaStatus::insufficient_components);
    auto bad_prefix = join_req(bcast, 0x11);
    bad_prefix.port_gid.prefix = 0xfec0000000000000ull;
    CHECK(t.join(bad_prefix, join_mask, Guid(0x11), L).status == SaStatus::invalid_gid);
    CHECK(t.join(join_req(bcast, 0x99), join_mask, Guid(0x99), L).status == SaStatus::req_invalid);
    CHECK(t.join(join_req(bcast, 0x12), join_mask, Guid(0x12), L).status == SaStatus::req_invalid);
    CHECK(t.join(join_req(bcast, 0x13), join_mask, Guid(0x13), L).status == SaStatus::req_invalid);
    CHECK(t.join(join_req(bcast, 0x14), join_mask, Guid(0x14), L).status == SaStatus::req_invalid);
    CHECK(t.join(join_req(bcast, 0x11, 0), join_mask, Guid(0x11), L).status == SaStatus::req_invalid);
    auto qkey = join_req(bcast, 0x11);
    qkey.q_key = 0x1;
    CHECK(t.join(qkey, join_mask | m::q_key, Guid(0x11), L).status == SaStatus::req_invalid);
    auto mtu = join_req(bcast, 0x11);
    mtu.mtu_selector = 0; // greater than 2048: the group's is not
    mtu.mtu = 4;
    CHECK(t.join(mtu, join_mask | m::mtu | m::mtu_selector, Guid(0x11), L).status == SaStatus::req_invalid);
    mtu.mtu_selector = 1; // less than 4096: 2048 is
    mtu.mtu = 5;
    CHECK(t.join(mtu, join_mask | m::mtu | m::mtu_selector, Guid(0x11), L).status == SaStatus::ok);
    auto rate = join_req(bcast, 0x11);
    rate.rate = 1; // reserved code
    rate.rate_selector = 2;
    CHECK(t.join(rate, join_mask | m::rate | m::rate_selector, Guid(0x11), L).status == SaStatus::req_invalid);
    CHECK(t.find(bcast)->members.size() == 1);
}

TEST_CASE("Creating a group needs FullMember and the create components")
{
    Subnet s;
    s.add(0x11);
    GroupTable t({});
    auto L = s.lookup();
    CHECK(t.join(create_req(app, 0x11), join_mask, Guid(0x11), L).status == SaStatus::insufficient_components);
    auto non = create_req(app, 0x11);
    non.join_state = js::non_member;
    CHECK(t.join(non, create_mask, Guid(0x11), L).status == SaStatus::req_invalid);
    auto unicast = create_req(Gid128{prefix, 0x5}, 0x11);
    CHECK(t.join(unicast, create_mask, Guid(0x11), L).status == SaStatus::req_invalid);
    auto sa_sig = create_req(Gid128{0xff12a01b00000000ull, 7}, 0x11);
    CHECK(t.join(sa_sig, create_mask, Guid(0x11), L).status == SaStatus::req_invalid);
    auto big_mtu = create_req(app, 0x11);
    big_mtu.mtu_selector = 2;
    big_mtu.mtu = 5; // 4096 > the port's 2048
    CHECK(t.join(big_mtu, create_mask | m::mtu | m::mtu_selector, Guid(0x11), L).status == SaStatus::req_invalid);
    CHECK(t.groups().empty());

    auto o = t.join(create_req(app, 0x11), create_mask, Guid(0x11), L);
    REQUIRE(o.status == SaStatus::ok);
    CHECK(o.created);
    CHECK(o.record.mlid == Lid(0xC000));
    CHECK(o.record.q_key == 0x1234);
    CHECK(o.record.sl == 1);
    CHECK(o.record.mtu == 4); // the creating port's
    CHECK(o.record.rate == 3);
    CHECK(o.record.scope == 5);
}

TEST_CASE("A group's packet life time satisfies the creator's selector, and a join with the same selector fits it")
{
    // osmtest -f m: create with PacketLifeTime "greater than 0", then join
    // the group again (JoinState 0x3) with the same components.
    Subnet s;
    s.add(0x11);
    GroupTable t({});
    auto L = s.lookup();
    const std::uint64_t life = m::packet_life_time | m::packet_life_time_selector;
    auto r = create_req(app, 0x11);
    r.packet_life_time_selector = 0; // greater than
    r.packet_life_time = 0;
    auto o = t.join(r, create_mask | life, Guid(0x11), L);
    REQUIRE(o.status == SaStatus::ok);
    CHECK(o.record.packet_life_time > 0);
    r.join_state = js::full_member | js::non_member;
    CHECK(t.join(r, create_mask | life | m::scope, Guid(0x11), L).status == SaStatus::ok);
    // Greater than the SA's own value: the next one up; less than: below.
    const Gid128 app2{0xff15000000000000ull, 0x43}, app3{0xff15000000000000ull, 0x44}, app4{0xff15000000000000ull, 0x45};
    auto above = create_req(app2, 0x11);
    above.packet_life_time_selector = 0;
    above.packet_life_time = 40;
    auto a = t.join(above, create_mask | life, Guid(0x11), L);
    REQUIRE(a.status == SaStatus::ok);
    CHECK(a.record.packet_life_time == 41);
    auto below = create_req(app3, 0x11);
    below.packet_life_time_selector = 1;
    below.packet_life_time = 3;
    auto b = t.join(below, create_mask | life, Guid(0x11), L);
    REQUIRE(b.status == SaStatus::ok);
    CHECK(b.record.packet_life_time == 2);
    auto none = create_req(app4, 0x11);
    none.packet_life_time_selector = 1;
    none.packet_life_time = 0;
    CHECK(t.join(none, create_mask | life, Guid(0x11), L).status == SaStatus::req_invalid);
}

TEST_CASE("MGID 0 asks the SA for one")
{
    Subnet s;
    s.add(0x11);
    GroupTable t({});
    auto r = create_req(Gid128{}, 0x11);
    auto a = t.join(r, create_mask, Guid(0x11), s.lookup());
    auto b = t.join(r, create_mask, Guid(0x11), s.lookup());
    REQUIRE(a.status == SaStatus::ok);
    REQUIRE(b.status == SaStatus::ok);
    CHECK(a.record.mgid != b.record.mgid);
    CHECK(a.record.mgid.str().substr(0, 9) == "ff12:a01b");
    CHECK(a.record.mlid != b.record.mlid);
}

TEST_CASE("Leave: subsets of the JoinState, the last full member ends the group")
{
    Subnet s;
    s.add(0x11);
    s.add(0x12);
    GroupTable t({});
    auto L = s.lookup();
    REQUIRE(t.join(create_req(app, 0x11), create_mask, Guid(0x11), L).status == SaStatus::ok);
    REQUIRE(t.join(join_req(app, 0x12, js::non_member), join_mask, Guid(0x12), L).status == SaStatus::ok);
    CHECK(t.leave(join_req(app, 0x12, js::full_member), join_mask, Guid(0x12), L).status == SaStatus::req_invalid);
    CHECK(t.leave(join_req(app, 0x12, js::non_member | js::full_member), join_mask, Guid(0x12), L).status ==
          SaStatus::req_invalid);
    CHECK(t.leave(join_req(app, 0x13, js::non_member), join_mask, Guid(0x13), L).status == SaStatus::req_invalid);
    CHECK(t.leave(join_req(app, 0x12), m::mgid, Guid(0x12), L).status == SaStatus::insufficient_components);
    // Another port may not end 0x11's membership (no ProxyJoin).
    CHECK(t.leave(join_req(app, 0x11), join_mask, Guid(0x12), L).status == SaStatus::req_invalid);

    auto o = t.leave(join_req(app, 0x11), join_mask, Guid(0x11), L);
    REQUIRE(o.status == SaStatus::ok);
    CHECK(o.members_changed);
    CHECK(o.record.join_state == 0);
    CHECK(t.find(app) == nullptr); // the non-member went with it
    CHECK(t.find(Lid(0xC000)) == nullptr);
    // The MLID is free again.
    CHECK(t.join(create_req(app, 0x12), create_mask, Guid(0x12), L).record.mlid == Lid(0xC000));
}

TEST_CASE("The permanent broadcast group stays when its last member leaves")
{
    Subnet s;
    s.add(0x11);
    GroupTable t({});
    t.create_permanent(ipoib_broadcast_params(0xffff));
    REQUIRE(t.join(join_req(bcast, 0x11), join_mask, Guid(0x11), s.lookup()).status == SaStatus::ok);
    REQUIRE(t.leave(join_req(bcast, 0x11), join_mask, Guid(0x11), s.lookup()).status == SaStatus::ok);
    REQUIRE(t.find(bcast));
    CHECK(t.find(bcast)->members.empty());
}

TEST_CASE("Proxy joins need a shared partition and leave the membership to the partition")
{
    Subnet s;
    s.add(0x11);
    s.add(0x12);
    s.add(0x13, {0x8001});
    GroupTable t({});
    t.create_permanent(ipoib_broadcast_params(0xffff));
    auto L = s.lookup();
    CHECK(t.join(join_req(bcast, 0x11), join_mask, Guid(0x13), L).status == SaStatus::req_invalid);
    auto r = join_req(bcast, 0x11);
    r.proxy_join = true;
    REQUIRE(t.join(r, join_mask | m::proxy_join, Guid(0x12), L).status == SaStatus::ok);
    CHECK(t.find(bcast)->members.at(Guid(0x11)).proxy_join);
    // ProxyJoin set: any port of the group's partition may end it.
    CHECK(t.leave(join_req(bcast, 0x11), join_mask, Guid(0x12), L).status == SaStatus::ok);
    // A join for another port without the ProxyJoin component is a proxy
    // join too (OpenSM; osmtest -f m joins and leaves for a remote port so).
    REQUIRE(t.join(join_req(bcast, 0x11), join_mask, Guid(0x12), L).status == SaStatus::ok);
    CHECK(t.find(bcast)->members.at(Guid(0x11)).proxy_join);
    CHECK(t.leave(join_req(bcast, 0x11), join_mask, Guid(0x12), L).status == SaStatus::ok);
    // Its own join is not: another port may not end it.
    REQUIRE(t.join(join_req(bcast, 0x12), join_mask, Guid(0x12), L).status == SaStatus::ok);
    CHECK_FALSE(t.find(bcast)->members.at(Guid(0x12)).proxy_join);
    CHECK(t.leave(join_req(bcast, 0x12), join_mask, Guid(0x11), L).status == SaStatus::req_invalid);
}

TEST_CASE("Queries: partition visibility, trusted gets members, untrusted gets groups")
{
    Subnet s;
    s.add(0x11);
    s.add(0x12);
    s.add(0x13, {0x8001});
    GroupTable t({});
    auto L = s.lookup();
    t.create_permanent(ipoib_broadcast_params(0xffff));
    t.create_permanent(ipoib_broadcast_params(0x8001));
    t.join(join_req(bcast, 0x11), join_mask, Guid(0x11), L);
    t.join(join_req(bcast, 0x12, js::send_only_non_member), join_mask, Guid(0x12), L);

    auto all = t.query({}, 0, Guid(0x11), true, L);
    CHECK(all.size() == 2); // two members of the visible group; the other partition's group is hidden
    auto one = t.query(join_req(bcast, 0x12), m::mgid | m::port_gid, Guid(0x11), true, L);
    REQUIRE(one.size() == 1);
    CHECK(one[0].port_gid == Gid128{prefix, 0x12});
    CHECK(one[0].join_state == js::send_only_non_member);
    auto full_only = t.query(join_req(bcast, 0, js::full_member), m::join_state, Guid(0x11), true, L);
    CHECK(full_only.size() == 1);

    auto untrusted = t.query({}, 0, Guid(0x11), false, L);
    REQUIRE(untrusted.size() == 1);
    CHECK(untrusted[0].port_gid.is_zero());
    CHECK(untrusted[0].join_state == 0);
    CHECK(untrusted[0].mlid == Lid(0xC000));

    McMemberRecord by_mlid;
    by_mlid.mlid = Lid(0xC001);
    CHECK(t.query(by_mlid, m::mlid, Guid(0x13), true, L).size() == 0); // empty group: no member records
    CHECK(t.query(by_mlid, m::mlid, Guid(0x13), false, L).size() == 1);
    CHECK(t.query(by_mlid, m::mlid, Guid(0x11), false, L).empty());
}

TEST_CASE("MLIDs run out at the switches' capacity")
{
    Subnet s;
    s.add(0x11);
    GroupTable t({prefix, 0xC001});
    auto L = s.lookup();
    CHECK(t.join(create_req(Gid128{0xff15000000000000ull, 1}, 0x11), create_mask, Guid(0x11), L).status == SaStatus::ok);
    CHECK(t.join(create_req(Gid128{0xff15000000000000ull, 2}, 0x11), create_mask, Guid(0x11), L).status == SaStatus::ok);
    CHECK(t.join(create_req(Gid128{0xff15000000000000ull, 3}, 0x11), create_mask, Guid(0x11), L).status ==
          SaStatus::no_resources);
}

TEST_CASE("Ports gone from the subnet lose their memberships")
{
    Subnet s;
    s.add(0x11);
    s.add(0x12);
    GroupTable t({});
    auto L = s.lookup();
    t.create_permanent(ipoib_broadcast_params(0xffff));
    t.join(join_req(bcast, 0x11), join_mask, Guid(0x11), L);
    t.join(join_req(bcast, 0x12), join_mask, Guid(0x12), L);
    t.join(create_req(app, 0x12), create_mask, Guid(0x12), L);
    auto changed = t.drop_ports([](Guid g) { return g == Guid(0x12); });
    CHECK(changed.size() == 2);
    CHECK(t.find(bcast)->members.size() == 1);
    CHECK(t.find(app) == nullptr);
}

TEST_CASE("Rate codes compare by speed, not by number")
{
    CHECK(compare_rates(3, 5) > 0); // 10 Gb/s > 5 Gb/s
    CHECK(compare_rates(15, 3) > 0); // 25 > 10
    CHECK(compare_rates(17, 16) > 0);
    CHECK_FALSE(rate_valid(1));
    const auto port = [](std::uint8_t width, std::uint8_t speed, std::uint8_t ext, std::uint8_t ext2 = 0) {
        topology::Port p;
        p.link_width_active = width;
        p.link_speed_active = speed;
        p.link_speed_ext_active = ext;
        p.link_speed_ext_active2 = ext2;
        return p;
    };
    CHECK(link_rate_code(port(2, 1, 0)) == std::uint8_t{3});  // 4x SDR
    CHECK(link_rate_code(port(2, 4, 0)) == std::uint8_t{7});  // 4x QDR 40
    CHECK(link_rate_code(port(2, 4, 1)) == std::uint8_t{12}); // 4x FDR 56
    CHECK(link_rate_code(port(8, 1, 0)) == std::uint8_t{4});  // 12x SDR 30
    CHECK(link_rate_code(port(2, 1, 8)) == std::uint8_t{21}); // 4x NDR 400
    CHECK(link_rate_code(port(2, 1, 8, 1)) == std::uint8_t{23}); // 4x XDR 800
    CHECK(compare_rates(25, 24) > 0); // 1600 > 1200
    CHECK(rate_valid(25));
    CHECK_FALSE(rate_valid(26));
    CHECK_FALSE(link_rate_code(port(3, 1, 0)));
}

TEST_CASE("Notices: 66 with a group's first full member, 67 when it loses its last or is deleted")
{
    Subnet s;
    s.add(0x11);
    s.add(0x12);
    GroupTable t({prefix});
    using N = GroupTable::GroupNotice;
    // A permanent group: nothing until a full member joins.
    REQUIRE(t.create_permanent(ipoib_broadcast_params(0xffff)).status == SaStatus::ok);
    CHECK(t.take_notices().empty());
    REQUIRE(t.join(join_req(bcast, 0x11, js::non_member), join_mask, Guid(0x11), s.lookup()).status == SaStatus::ok);
    CHECK(t.take_notices().empty()); // a non-member is no full member
    REQUIRE(t.join(join_req(bcast, 0x12), join_mask, Guid(0x12), s.lookup()).status == SaStatus::ok);
    CHECK(t.take_notices() == std::vector<N>{{true, bcast}});
    REQUIRE(t.join(join_req(bcast, 0x11), join_mask, Guid(0x11), s.lookup()).status == SaStatus::ok);
    CHECK(t.take_notices().empty()); // not the first
    // Its full members leave the fabric: the membership ends (67), the group stays.
    t.drop_ports([](Guid g) { return g == Guid(0x11) || g == Guid(0x12); });
    CHECK(t.take_notices() == std::vector<N>{{false, bcast}});
    REQUIRE(t.find(bcast));
    // Deleted with its partition: 67 again, whatever its members.
    REQUIRE(t.remove(bcast));
    CHECK(t.take_notices() == std::vector<N>{{false, bcast}});

    // A group made by a join: 66; its last full member leaves: 67, once.
    REQUIRE(t.join(create_req(app, 0x11), create_mask, Guid(0x11), s.lookup()).status == SaStatus::ok);
    CHECK(t.take_notices() == std::vector<N>{{true, app}});
    REQUIRE(t.leave(join_req(app, 0x11), join_mask, Guid(0x11), s.lookup()).status == SaStatus::ok);
    CHECK_FALSE(t.find(app));
    CHECK(t.take_notices() == std::vector<N>{{false, app}});
    CHECK(t.take_notices().empty());
}
