// The SMInfo responder: Get(SMInfo) answers, and "unsupported attribute"
// for what the SM does not serve.
#include "../support/fake_loop.h"

#include "daemon/sm/sm_info_responder.h"
#include "mad/sm_info.h"

#include <catch2/catch.hpp>

using namespace ibsm;

TEST_CASE("the SMInfo responder answers Get(SMInfo) with our GUID, priority and state", "[sminfo]")
{
    boost::asio::io_context io;
    test::FakePort port(true);
    mad::Transport transport(io, port, {});
    daemon::SmInfoResponder responder(transport, Guid(0x2c90300000001), 5);
    responder.install();
    responder.set_state(mad::SmState::master);
    transport.start();

    mad::RawReceive get;
    get.smp = mad::make_lid_request(mad::Method::get, Lid(1), mad::attr::sm_info, 0, 42);
    get.length = mad::mad_size;
    port.inject(get);
    mad::RawReceive trap;
    trap.smp = mad::make_lid_request(mad::Method::trap, Lid(1), mad::attr::notice, 0, 43);
    trap.length = mad::mad_size;
    port.inject(trap);
    boost::asio::steady_timer t(io, std::chrono::milliseconds(50));
    t.async_wait([&](auto) { transport.stop(); });
    io.run();

    REQUIRE(port.responses.size() == 1);
    CHECK(port.responses[0].tid() == 42);
    auto si = mad::decode_sm_info(port.responses[0].data());
    REQUIRE(si);
    CHECK(si->guid == Guid(0x2c90300000001));
    CHECK(si->priority == 5);
    CHECK(si->sm_state == mad::SmState::master);
    CHECK(responder.counters().sm_info_answered == 1);
    CHECK(responder.counters().traps == 1);
}

TEST_CASE("a Get or Set of an attribute the SM does not serve is answered 'unsupported attribute'", "[sminfo]")
{
    boost::asio::io_context io;
    test::FakePort port(true);
    mad::Transport transport(io, port, {});
    daemon::SmInfoResponder responder(transport, Guid(0x2c90300000001), 5);
    responder.install();
    transport.start();

    auto inject = [&](mad::Method m, std::uint16_t attr, std::uint64_t tid, bool dr) {
        mad::RawReceive r;
        r.smp = dr ? mad::make_dr_request(m, DrPath{}.extended(PortNum(1)), attr, 0, tid)
                   : mad::make_lid_request(m, Lid(1), attr, 0, tid);
        r.length = mad::mad_size;
        port.inject(r);
    };
    inject(mad::Method::get, 0xff00, 1, false);         // vendor attribute
    inject(mad::Method::set, mad::attr::node_info, 2, true); // NodeInfo is the SMA's, not the SM's
    inject(mad::Method::get, 0xff00, 3, false);         // the same kind again: answered, not logged
    inject(static_cast<mad::Method>(0x03), 0xff00, 4, false); // Send: not a Get/Set, no answer
    inject(mad::Method::set, mad::attr::sm_info, 5, false);   // SMInfo Set: the election's, refused (no handler)
    boost::asio::steady_timer t(io, std::chrono::milliseconds(50));
    t.async_wait([&](auto) { transport.stop(); });
    io.run();

    REQUIRE(port.responses.size() == 4);
    // The SMInfo Set is answered with our SMInfo and "invalid value" (no
    // master/standby handler accepted it), not with "unsupported".
    CHECK(port.responses[3].tid() == 5);
    CHECK(port.responses[3].attr_id() == mad::attr::sm_info);
    CHECK(port.responses[3].status() == 0x001c);
    CHECK(responder.counters().sets_refused == 1);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(port.responses[i].method() == static_cast<std::uint8_t>(mad::Method::get_resp));
        CHECK(port.responses[i].status() == mad::mad_status::method_attribute_unsupported);
    }
    CHECK(port.responses[0].tid() == 1);
    CHECK(port.responses[1].tid() == 2);
    CHECK(port.responses[1].direction_inbound());
    CHECK(port.responses[2].tid() == 3);
    CHECK(responder.counters().unsupported_answered == 3);
    CHECK(responder.counters().ignored == 4);
}
