// The preload's endpoint (ibsim_rmpp/endpoint.h) between two simulated
// ports: a client's multi-packet send reaches the other side whole, ACKs and
// ABORTs never reach a client, agents without RMPP pass untouched, lost
// packets are resent, and a transfer whose peer is gone ends with ABORT
// (and ETIMEDOUT for a sender that waits for an answer).
#include "ibsim_rmpp/endpoint.h"

#include "mad/sa/rmpp_wire.h"

#include <catch2/catch.hpp>

#include <arpa/inet.h>

#include <cerrno>
#include <numeric>

using namespace ibsm::ibsim_rmpp;
namespace sa = ibsm::mad::sa;

namespace {

constexpr std::uint16_t lid_a = 3, lid_b = 9;

// What the client hands to umad_send: an SA GetTableResp of `data` bytes,
// RMPP active as OpenSM writes it (the segment fields are the layer's job).
Packet table_answer(std::size_t data, std::uint32_t agent, std::uint16_t to)
{
    sa::SaHeader h;
    h.method = sa::method::get_table_resp;
    h.tid = 0x1234;
    h.attr_id = sa::attr::node_record;
    h.attr_offset = 14;
    h.rmpp.version = 1;
    h.rmpp.type = sa::RmppType::data;
    h.rmpp.flags = sa::rmpp_flag::active;
    Packet p;
    p.hdr.agent_id = agent;
    p.hdr.addr.lid = htons(to);
    const auto m = sa::make_mad(h);
    p.mad.assign(m.begin(), m.begin() + sa::header_size);
    for (std::size_t i = 0; i < data; ++i) p.mad.push_back(static_cast<std::uint8_t>(i * 7 + 1));
    return p;
}

// The simulator between A and B: a packet written by one side arrives at
// the other with the writer's LID as its address (as ibsim and umad2sim do).
Packet arriving(Packet p, std::uint16_t from, std::uint32_t agent)
{
    p.hdr.addr.lid = htons(from);
    p.hdr.agent_id = agent;
    p.hdr.status = 0;
    return p;
}

struct Link {
    Endpoint a, b;
    Clock::time_point now{};
    unsigned a_to_b = 0, b_to_a = 0;
    // Delivers outboxes both ways until quiet; `drop` decides per packet
    // number (1, 2, ... of A's packets) whether A's packet is lost.
    void run(std::vector<Packet> from_a, const std::function<bool(unsigned)>& drop = {})
    {
        for (int round = 0; round < 100 && !from_a.empty(); ++round) {
            for (auto& p : from_a) {
                ++a_to_b;
                if (drop && drop(a_to_b)) continue;
                b.received(arriving(std::move(p), lid_a, 1), now);
            }
            for (auto& p : b.take_outbox()) {
                ++b_to_a;
                a.received(arriving(std::move(p), lid_b, 7), now);
            }
            from_a = a.take_outbox();
        }
    }
    void later(std::chrono::milliseconds d)
    {
        now += d;
        a.tick(now);
        b.tick(now);
    }
};

} // namespace

TEST_CASE("a multi-packet send arrives whole; the control traffic stays between the layers", "[ibsim_rmpp]")
{
    Link l{Endpoint(Settings{4, std::chrono::milliseconds(200), 3, std::chrono::milliseconds(1000), 100}),
           Endpoint(Settings{4, std::chrono::milliseconds(200), 3, std::chrono::milliseconds(1000), 100})};
    l.a.registered(7, 1);
    l.b.registered(1, 1);
    const auto sent = table_answer(1500, 7, lid_b); // 8 segments
    auto first = l.a.send(sent, l.now);
    CHECK(first.size() == 1); // window 1 until B's first ACK
    l.run(std::move(first));
    REQUIRE(l.b.has_ready());
    const auto& got = l.b.front_ready();
    REQUIRE(got.mad.size() == sent.mad.size());
    CHECK(std::equal(sent.mad.begin() + 36, sent.mad.end(), got.mad.begin() + 36));
    CHECK(got.hdr.length == sizeof(ib_user_mad_t) + sent.mad.size());
    CHECK(got.hdr.agent_id == 1);
    CHECK(l.a_to_b == 8);
    CHECK(l.b_to_a == 3); // ACKs of 1, 5 and 8
    CHECK_FALSE(l.a.has_ready());
    CHECK(l.a.sending() == 0);
    CHECK(l.a.counters().sent_completed == 1);
    CHECK(l.b.counters().received_completed == 1);
}

TEST_CASE("lost segments are sent again after the ACK timeout", "[ibsim_rmpp]")
{
    Link l{Endpoint(Settings{4, std::chrono::milliseconds(200), 3, std::chrono::milliseconds(1000), 100}),
           Endpoint(Settings{4, std::chrono::milliseconds(200), 3, std::chrono::milliseconds(1000), 100})};
    l.a.registered(7, 1);
    l.b.registered(1, 1);
    const auto sent = table_answer(1500, 7, lid_b);
    l.run(l.a.send(sent, l.now), [](unsigned k) { return k == 3; });
    CHECK_FALSE(l.b.has_ready());
    REQUIRE(l.a.next_deadline());
    l.later(std::chrono::milliseconds(199));
    CHECK(l.a.take_outbox().empty());
    l.later(std::chrono::milliseconds(1));
    l.run(l.a.take_outbox());
    REQUIRE(l.b.has_ready());
    CHECK(std::equal(sent.mad.begin() + 36, sent.mad.end(), l.b.front_ready().mad.begin() + 36));
}

TEST_CASE("without an answering peer the sender ABORTs and a waiting client gets ETIMEDOUT", "[ibsim_rmpp]")
{
    Endpoint a(Settings{4, std::chrono::milliseconds(100), 2, std::chrono::milliseconds(1000), 100});
    a.registered(7, 1);
    auto req = table_answer(900, 7, lid_b);
    req.hdr.timeout_ms = 500;
    Clock::time_point now{};
    REQUIRE(a.send(req, now).size() == 1);
    for (int i = 1; i <= 2; ++i) {
        now += std::chrono::milliseconds(100);
        a.tick(now);
        auto again = a.take_outbox();
        REQUIRE(again.size() == 1);
        CHECK(sa::read_rmpp(again[0].mad).data1 == 1);
    }
    now += std::chrono::milliseconds(100);
    a.tick(now);
    auto out = a.take_outbox();
    REQUIRE(out.size() == 1);
    CHECK(sa::read_rmpp(out[0].mad).type == sa::RmppType::abort);
    CHECK(sa::read_rmpp(out[0].mad).status == sa::rmpp_status::too_many_retries);
    REQUIRE(a.has_ready());
    CHECK(a.front_ready().hdr.status == ETIMEDOUT);
    CHECK(a.sending() == 0);
}

TEST_CASE("a receiver whose sender went quiet ABORTs with T2L", "[ibsim_rmpp]")
{
    Endpoint a(Settings{4, std::chrono::milliseconds(200), 3, std::chrono::milliseconds(1000), 100});
    Endpoint b(Settings{4, std::chrono::milliseconds(200), 3, std::chrono::milliseconds(500), 100});
    a.registered(7, 1);
    b.registered(1, 1);
    Clock::time_point now{};
    auto first = a.send(table_answer(900, 7, lid_b), now);
    b.received(arriving(first.at(0), lid_a, 1), now);
    REQUIRE(b.take_outbox().size() == 1); // the ACK of segment 1
    now += std::chrono::milliseconds(500);
    b.tick(now);
    auto out = b.take_outbox();
    REQUIRE(out.size() == 1);
    CHECK(sa::read_rmpp(out[0].mad).type == sa::RmppType::abort);
    CHECK(sa::read_rmpp(out[0].mad).status == sa::rmpp_status::total_time_too_long);
    CHECK(ntohs(out[0].hdr.addr.lid) == lid_a);
    CHECK(b.receiving() == 0);
    CHECK_FALSE(b.has_ready());
    // The sender learns it from the ABORT and stops.
    a.received(arriving(out[0], lid_b, 7), now);
    CHECK(a.sending() == 0);
    CHECK_FALSE(a.has_ready()); // it waited for no answer (timeout_ms 0)
}

TEST_CASE("agents without RMPP, and MADs without the Active flag, pass untouched", "[ibsim_rmpp]")
{
    Endpoint a;
    a.registered(7, 0); // e.g. an SMP agent
    a.registered(8, 1);
    const auto plain = table_answer(900, 7, lid_b);
    auto out = a.send(plain, Clock::time_point{});
    REQUIRE(out.size() == 1);
    CHECK(out[0].mad == plain.mad);
    auto inactive = table_answer(100, 8, lid_b);
    inactive.mad[26] = 0;
    out = a.send(inactive, Clock::time_point{});
    REQUIRE(out.size() == 1);
    CHECK(out[0].mad == inactive.mad);
    // A one-segment RMPP send gets First|Last and its PayloadLength, and no
    // transfer is kept for it.
    out = a.send(table_answer(100, 8, lid_b), Clock::time_point{});
    REQUIRE(out.size() == 1);
    const auto r = sa::read_rmpp(out[0].mad);
    CHECK(r.flags == (sa::rmpp_flag::active | sa::rmpp_flag::first | sa::rmpp_flag::last));
    CHECK(r.data2 == 20 + 100);
    CHECK(a.sending() == 0);
    // Received: handed to the client as it came, ACK-less.
    Packet in = arriving(plain, lid_b, 7);
    a.received(in, Clock::time_point{});
    REQUIRE(a.has_ready());
    CHECK(a.front_ready().mad == plain.mad);
    CHECK(a.take_outbox().empty());
}

namespace {
// A client's request (SA Get of a NodeRecord) waiting `timeout_ms` per try.
Packet get_request(std::uint32_t agent, std::uint32_t timeout_ms, std::uint32_t retries)
{
    sa::SaHeader h;
    h.method = sa::method::get;
    h.tid = 0xabcd00000042ull; // the high half is the client's; umad2sim overwrites it
    h.attr_id = sa::attr::node_record;
    Packet p;
    p.hdr.agent_id = agent;
    p.hdr.addr.lid = htons(lid_b);
    p.hdr.timeout_ms = timeout_ms;
    p.hdr.retries = retries;
    const auto m = sa::make_mad(h);
    p.mad.assign(m.begin(), m.end());
    return p;
}

// The SA's answer to it, as it arrives: the TID's high half as umad2sim set it.
Packet get_response(const Packet& request, std::uint32_t agent)
{
    Packet r = arriving(request, lid_b, agent);
    r.hdr.timeout_ms = 0;
    r.hdr.retries = 0;
    r.mad[3] = sa::method::get_resp;
    r.mad[8] = 0x00;
    r.mad[9] = 0x07; // high half of the TID: umad2sim's agent id
    return r;
}
} // namespace

TEST_CASE("an unanswered request is sent again, then handed back with ETIMEDOUT, as the kernel does", "[ibsim_rmpp]")
{
    Endpoint a;
    a.registered(3, 0); // no RMPP: the kernel keeps the wait for every agent
    Clock::time_point now{};
    const auto req = get_request(3, 100, 2);
    REQUIRE(a.send(req, now).size() == 1);
    CHECK(a.awaiting_response() == 1);
    REQUIRE(a.next_deadline());
    CHECK(*a.next_deadline() == now + std::chrono::milliseconds(100));
    for (int i = 0; i < 2; ++i) {
        now += std::chrono::milliseconds(99);
        a.tick(now);
        CHECK(a.take_outbox().empty());
        now += std::chrono::milliseconds(1);
        a.tick(now);
        auto again = a.take_outbox();
        REQUIRE(again.size() == 1);
        CHECK(again[0].mad == req.mad);
        CHECK_FALSE(a.has_ready());
    }
    now += std::chrono::milliseconds(100);
    a.tick(now);
    CHECK(a.take_outbox().empty());
    REQUIRE(a.has_ready());
    const auto& back = a.front_ready();
    CHECK(back.hdr.status == ETIMEDOUT);
    CHECK(back.mad == req.mad); // the client finds its request by the TID it wrote
    CHECK(a.awaiting_response() == 0);
    CHECK(a.counters().requests_resent == 2);
    CHECK(a.counters().requests_timed_out == 1);
    a.pop_ready();
    // Nothing more comes of it.
    now += std::chrono::seconds(10);
    a.tick(now);
    CHECK_FALSE(a.has_ready());
    CHECK(a.take_outbox().empty());
}

TEST_CASE("a response ends the wait; a request without a timeout and a response sent are not waited on", "[ibsim_rmpp]")
{
    Endpoint a;
    a.registered(3, 1);
    Clock::time_point now{};
    const auto req = get_request(3, 100, 1);
    a.send(req, now);
    now += std::chrono::milliseconds(50);
    a.received(get_response(req, 3), now);
    CHECK(a.awaiting_response() == 0);
    REQUIRE(a.has_ready());
    CHECK(a.front_ready().hdr.status == 0);
    a.pop_ready();
    now += std::chrono::seconds(1);
    a.tick(now);
    CHECK_FALSE(a.has_ready());
    CHECK(a.take_outbox().empty());
    // A response of another TID leaves a waiting request waiting.
    a.send(req, now);
    auto other = get_response(req, 3);
    other.mad[15] = 0x43;
    a.received(other, now);
    CHECK(a.awaiting_response() == 1);
    // Timeout 0 (the client waits for nothing), and responses (an SA's
    // answers): no wait.
    Endpoint b;
    auto no_timeout = get_request(3, 0, 3);
    b.send(no_timeout, now);
    b.send(table_answer(100, 3, lid_b), now);
    CHECK(b.awaiting_response() == 0);
    CHECK_FALSE(b.next_deadline());
}

TEST_CASE("a response arriving in segments holds the wait off until it is whole", "[ibsim_rmpp]")
{
    // A asks (agent 7, 50 ms, no retry); B, the SA, answers with a
    // GetTableResp of 8 segments whose ACKs come slowly.
    const Settings settings{4, std::chrono::milliseconds(200), 3, std::chrono::milliseconds(1000), 100};
    Endpoint a(settings), b(settings);
    a.registered(7, 1);
    b.registered(1, 1);
    Clock::time_point now{};
    auto req = get_request(7, 50, 0);
    for (std::size_t i = 8; i < 14; ++i) req.mad[i] = 0;
    req.mad[14] = 0x12;
    req.mad[15] = 0x34; // table_answer's TID
    a.send(req, now);
    auto to_a = b.send(table_answer(1500, 1, lid_a), now);
    unsigned rounds = 0;
    while (!to_a.empty() && rounds++ < 50) {
        for (auto& p : to_a) a.received(arriving(std::move(p), lid_b, 7), now);
        now += std::chrono::milliseconds(40); // slower than the request's 50 ms, in total
        a.tick(now);
        if (a.has_ready()) CHECK(a.front_ready().hdr.status == 0); // no ETIMEDOUT while the answer comes
        for (auto& p : a.take_outbox()) b.received(arriving(std::move(p), lid_a, 1), now);
        to_a = b.take_outbox();
        if (a.awaiting_response() == 0) break;
    }
    CHECK(rounds > 2); // the answer took longer than the request's timeout
    CHECK(a.awaiting_response() == 0);
    REQUIRE(a.has_ready());
    CHECK(a.front_ready().hdr.status == 0);
    CHECK(a.front_ready().mad.size() > 1000);
    CHECK(a.counters().requests_timed_out == 0);
}
