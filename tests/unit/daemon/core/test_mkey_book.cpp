// The M_Key book (IBA 14.2.4) without a fabric: which key each SMP carries
// (held, desired, the previous ring's, per attempt), what answers and Sets
// teach it, when an unanswered SMP is an incident, and when a rotation ends.
#include "daemon/core/mkey_book.h"

#include "mad/node_info.h"
#include "mad/port_info.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace ibsm;

namespace {

const DrPath to_switch = DrPath{}.extended(PortNum(1));
const DrPath to_ca = to_switch.extended(PortNum(2));

// SM CA 0x100 (port 0x101) -[1] S 0x200 [2]- CA 0x300 (port 0x301)
daemon::DiscoveryResult found()
{
    daemon::DiscoveryResult r;
    auto& f = r.fabric;
    auto sm = f.add_node(topology::NodeType::ca, Guid(0x100), 1);
    auto sw = f.add_node(topology::NodeType::switch_node, Guid(0x200), 4);
    auto ca = f.add_node(topology::NodeType::ca, Guid(0x300), 1);
    f.set_port_guid({sm, PortNum(1)}, Guid(0x101));
    f.set_port_guid({ca, PortNum(1)}, Guid(0x301));
    f.connect({sm, PortNum(1)}, {sw, PortNum(1)});
    f.connect({ca, PortNum(1)}, {sw, PortNum(2)});
    r.paths = {DrPath{}, to_switch, to_ca};
    r.sm_port = {sm, PortNum(1)};
    r.port_info[{sm, PortNum(1)}] = {};
    r.port_info[{sw, PortNum(0)}] = {};
    r.port_info[{ca, PortNum(1)}] = {};
    return r;
}

mkey::KeyRing ring(std::uint8_t seed)
{
    mkey::SipKey k{};
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(seed * 7 + i);
    return mkey::KeyRing::per_port(k);
}

daemon::MkeySettings on(std::uint8_t seed, std::uint8_t bits = 1)
{
    return daemon::MkeySettings{true, ring(seed), bits, 60};
}

mad::Smp dr(mad::Method m, const DrPath& path, std::uint16_t attr, std::uint32_t mod = 0,
            const mad::PortInfo* written = nullptr)
{
    std::array<std::uint8_t, 64> data{};
    if (written) mad::encode(*written, std::span<std::uint8_t, 64>(data));
    return mad::make_dr_request(m, path, attr, mod, 1, data);
}

// `sent` answered with `data` (the request's key as the transport set it).
void answer(daemon::MkeyBook& book, mad::Smp sent, std::uint64_t key, std::span<const std::uint8_t> data,
            Lid dlid = Lid())
{
    sent.set_mkey(key);
    mad::SmpResponse r;
    r.smp = mad::make_get_resp(sent, data);
    r.attempts = 1;
    book.completed(mad::SmpRequest{sent, dlid}, r);
}

void answer_port_info(daemon::MkeyBook& book, const mad::Smp& sent, std::uint64_t key, const mad::PortInfo& shown,
                      Lid dlid = Lid())
{
    std::array<std::uint8_t, 64> data{};
    mad::encode(shown, std::span<std::uint8_t, 64>(data));
    answer(book, sent, key, data, dlid);
}

void time_out(daemon::MkeyBook& book, mad::Smp sent, Lid dlid = Lid())
{
    mad::SmpResponse r;
    r.failure = mad::SmpFailure::timeout;
    r.attempts = 3;
    book.completed(mad::SmpRequest{sent, dlid}, r);
}

mad::PortInfo showing(std::uint64_t mkey, Lid lid = Lid())
{
    mad::PortInfo pi;
    pi.mkey = mkey;
    pi.lid = lid;
    return pi;
}

} // namespace

TEST_CASE("M_Key off and no port keyed: every SMP carries 0 and a lost Set is a plain loss", "[mkey]")
{
    daemon::MkeyBook book;
    book.learn(found());
    std::vector<daemon::MkeyIncident> incidents;
    book.set_incident_handler([&](const daemon::MkeyIncident& i) { incidents.push_back(i); });
    const auto set = dr(mad::Method::set, to_switch, mad::attr::port_info);
    for (unsigned attempt = 1; attempt <= 3; ++attempt) CHECK(book.key_for(set, Lid(), attempt) == 0);
    time_out(book, set);
    CHECK(incidents.empty());
    CHECK(book.counters().unanswered == 0);
    CHECK(book.desired(Guid(0x200)) == 0);
    CHECK(book.view(Guid(0x200)).present);
}

TEST_CASE("M_Key on: a port the book learned gets its desired key, one it never saw gets 0", "[mkey]")
{
    daemon::MkeyBook book(on(1));
    book.learn(found());
    const auto r = ring(1);
    // A switch checks its port 0, whose GUID is the node GUID; a CA the port
    // the SMP enters by.
    CHECK(book.key_for(dr(mad::Method::get, to_switch, mad::attr::port_info), Lid(), 1) == r.key_of(Guid(0x200)));
    CHECK(book.key_for(dr(mad::Method::set, to_ca, mad::attr::port_info, 1), Lid(), 1) == r.key_of(Guid(0x301)));
    CHECK(book.key_for(dr(mad::Method::get, DrPath{}, mad::attr::port_info, 1), Lid(), 1) == r.key_of(Guid(0x101)));
    // Not read yet: 0, which a Get passes at levels 0 and 1.
    CHECK(book.key_for(dr(mad::Method::get, to_switch.extended(PortNum(3)), mad::attr::node_info), Lid(), 1) == 0);
    CHECK(book.key_for(mad::make_lid_request(mad::Method::get, Lid(9), mad::attr::port_info, 0, 1), Lid(9), 1) == 0);
}

TEST_CASE("answers teach the book: NodeInfo the target, PortInfo the held key and the LID, a Set what it wrote",
          "[mkey]")
{
    daemon::MkeyBook book(on(1));
    book.learn(found());
    const auto r = ring(1);
    const Guid ca(0x301);

    // A Get showing a key: the port holds it, and it is tried first.
    const auto get = dr(mad::Method::get, to_ca, mad::attr::port_info, 1);
    answer_port_info(book, get, 0, showing(0x5eed, Lid(12)));
    CHECK(book.held(ca) == 0x5eed);
    CHECK(book.key_for(get, Lid(), 1) == 0x5eed);
    CHECK(book.key_for(get, Lid(), 2) == r.key_of(ca));
    CHECK(book.key_for(get, Lid(), 3) == 0x5eed);
    CHECK(book.counters().retried_with_other_key == 2);
    // The LID it showed now reaches the same port.
    const auto by_lid = mad::make_lid_request(mad::Method::get, Lid(12), mad::attr::port_info, 1, 2);
    CHECK(book.key_for(by_lid, Lid(12), 1) == 0x5eed);

    // A Get showing 0 proves nothing (level 1 hides the key).
    answer_port_info(book, get, 0, showing(0));
    CHECK(book.held(ca) == 0x5eed);

    // An answered Set wrote the M_Key it carried, whatever the answer shows
    // (ibsim answers 0).
    const auto written = showing(r.key_of(ca));
    const auto set = dr(mad::Method::set, to_ca, mad::attr::port_info, 1, &written);
    answer_port_info(book, set, 0x5eed, showing(0));
    CHECK(book.held(ca) == r.key_of(ca));
    CHECK(book.key_for(get, Lid(), 1) == r.key_of(ca));
    CHECK(book.key_for(get, Lid(), 2) == r.key_of(ca)); // one candidate left
    CHECK(book.counters().keys_learned == 2);
    CHECK(book.stale() == 0);

    // Any other answered Set: the port holds the key it carried.
    const Guid sw(0x200);
    answer(book, dr(mad::Method::set, to_switch, mad::attr::switch_info), 0x777, std::array<std::uint8_t, 64>{});
    CHECK(book.held(sw) == 0x777);
    CHECK(book.stale() == 1);

    // NodeInfo at a path the book did not know names the port that answers there.
    const DrPath far = to_switch.extended(PortNum(3));
    mad::NodeInfo ni;
    ni.node_type = mad::NodeKind::switch_node;
    ni.port_guid = Guid(0x400);
    ni.node_guid = Guid(0x400);
    std::array<std::uint8_t, 64> data{};
    mad::encode(ni, std::span<std::uint8_t, 64>(data));
    answer(book, dr(mad::Method::get, far, mad::attr::node_info), 0, data);
    CHECK(book.key_for(dr(mad::Method::set, far, mad::attr::port_info), Lid(), 1) == r.key_of(Guid(0x400)));
    CHECK_FALSE(book.view(Guid(0x400)).present); // not in the last sweep's fabric
}

TEST_CASE("an unanswered SMP is an incident only where the port checks it: Sets, Gets at level 2+, never SMInfo",
          "[mkey]")
{
    std::vector<daemon::MkeyIncident> incidents;
    auto book_with = [&](std::uint8_t bits) {
        auto b = std::make_unique<daemon::MkeyBook>(on(1, bits));
        b->learn(found());
        b->set_incident_handler([&](const daemon::MkeyIncident& i) { incidents.push_back(i); });
        return b;
    };
    auto level1 = book_with(1);
    time_out(*level1, dr(mad::Method::get, to_switch, mad::attr::port_info));
    time_out(*level1, dr(mad::Method::set, to_switch, mad::attr::sm_info));
    CHECK(incidents.empty());
    time_out(*level1, dr(mad::Method::set, to_switch, mad::attr::port_info));
    REQUIRE(incidents.size() == 1);
    CHECK(incidents[0].port == Guid(0x200));
    CHECK(incidents[0].is_switch);
    CHECK(incidents[0].where == "DR path 0,1");
    CHECK(incidents[0].what == "PortInfo Set");
    CHECK(level1->counters().unanswered == 1);

    auto level2 = book_with(2);
    // LID-routed, once the LID is known.
    answer_port_info(*level2, dr(mad::Method::get, to_ca, mad::attr::port_info, 1), 0, showing(0, Lid(12)));
    time_out(*level2, mad::make_lid_request(mad::Method::get, Lid(12), mad::attr::linear_forwarding_table, 0, 3),
             Lid(12));
    REQUIRE(incidents.size() == 2);
    CHECK(incidents[1].port == Guid(0x301));
    CHECK_FALSE(incidents[1].is_switch);
    CHECK(incidents[1].where == "LID 12");
    CHECK(incidents[1].what == "LinearForwardingTable Get");
    // A target the book does not know: nothing to blame.
    time_out(*level2, dr(mad::Method::set, to_switch.extended(PortNum(3)), mad::attr::port_info));
    CHECK(incidents.size() == 2);
}

TEST_CASE("a rotation tries the old ring's keys until every present port holds its new key", "[mkey]")
{
    daemon::MkeyBook book(on(1));
    const auto f = found();
    book.learn(f);
    const auto old_ring = ring(1), new_ring = ring(2);
    // A switch keeps its M_Key on port 0, a CA on the port Set.
    struct Port {
        DrPath path;
        Guid guid;
        std::uint32_t mod;
    };
    const std::vector<Port> ports{{DrPath{}, Guid(0x101), 1}, {to_switch, Guid(0x200), 0}, {to_ca, Guid(0x301), 1}};
    for (const auto& p : ports) {
        const auto w = showing(old_ring.key_of(p.guid));
        answer_port_info(book, dr(mad::Method::set, p.path, mad::attr::port_info, p.mod, &w), 0, showing(0));
    }
    CHECK(book.settle() == 0);
    CHECK_FALSE(book.rotating());

    book.set_settings(on(2));
    CHECK(book.rotating());
    CHECK(book.counters().rotations_started == 1);
    // Held (old) first, then the new key.
    const auto get = dr(mad::Method::get, to_switch, mad::attr::port_info);
    CHECK(book.key_for(get, Lid(), 1) == old_ring.key_of(Guid(0x200)));
    CHECK(book.key_for(get, Lid(), 2) == new_ring.key_of(Guid(0x200)));
    CHECK(book.stale() == 3);
    CHECK(book.settle() == 3);
    CHECK(book.rotating());

    // Two ports re-keyed; the third left the fabric before it was.
    for (std::size_t i = 0; i < 2; ++i) {
        const auto w = showing(new_ring.key_of(ports[i].guid));
        answer_port_info(book, dr(mad::Method::set, ports[i].path, mad::attr::port_info, ports[i].mod, &w),
                         old_ring.key_of(ports[i].guid), showing(0));
    }
    CHECK(book.settle() == 1);
    auto without = f;
    without.port_info.erase({topology::NodeId{2}, PortNum(1)}); // the CA's port is gone
    book.learn(without);
    CHECK(book.settle() == 0);
    CHECK_FALSE(book.rotating());
    CHECK(book.counters().rotations_completed == 1);
    // Back mid-rotation? No rotation any more: only its held key and the new one.
    CHECK(book.key_for(dr(mad::Method::get, to_ca, mad::attr::port_info, 1), Lid(), 1) ==
          old_ring.key_of(Guid(0x301)));
    CHECK(book.key_for(dr(mad::Method::get, to_ca, mad::attr::port_info, 1), Lid(), 2) ==
          new_ring.key_of(Guid(0x301)));
    CHECK(book.key_for(dr(mad::Method::get, to_ca, mad::attr::port_info, 1), Lid(), 3) ==
          old_ring.key_of(Guid(0x301)));
}

TEST_CASE("a port with no held key gets the new key, then the previous ring's, while a rotation runs", "[mkey]")
{
    daemon::MkeyBook book(on(1));
    book.learn(found());
    book.set_settings(on(2));
    REQUIRE(book.rotating());
    const auto get = dr(mad::Method::get, to_ca, mad::attr::port_info, 1);
    CHECK(book.key_for(get, Lid(), 1) == ring(2).key_of(Guid(0x301)));
    CHECK(book.key_for(get, Lid(), 2) == ring(1).key_of(Guid(0x301)));
    // Turning M_Key on is not a rotation: nothing was keyed before.
    daemon::MkeyBook fresh;
    fresh.set_settings(on(1));
    CHECK_FALSE(fresh.rotating());
    CHECK(fresh.counters().rotations_started == 0);
}
