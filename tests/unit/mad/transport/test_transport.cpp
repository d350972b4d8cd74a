#include "fake_port.h"

#include "mad/perf_mgt.h"
#include "mad/transport.h"

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <functional>
#include <map>
#include <set>

using namespace ibsm;
using namespace std::chrono_literals;

namespace {

mad::SmpRequest node_info_request(std::uint32_t marker)
{
    // attr_mod carries a marker so each response can be checked against
    // the request it belongs to.
    return {mad::make_dr_request(mad::Method::get, DrPath{}.extended(PortNum(1)), mad::attr::node_info, marker, 0),
            Lid{}};
}

struct Harness {
    explicit Harness(bool reactor, mad::TransportOptions o = {}) : port(reactor), transport(io, port, o)
    {
        transport.set_diagnostic([this](const std::string& m) { diagnostics.push_back(m); });
        transport.start();
    }

    // Issues `n` requests; every completion is stored by marker; the
    // transport stops when the last one completes so io.run() returns.
    void issue(unsigned n)
    {
        remaining = n;
        for (std::uint32_t i = 0; i < n; ++i) {
            transport.async_request(node_info_request(i), [this, i](mad::SmpResponse r) {
                results[i] = r;
                if (--remaining == 0) transport.stop();
            });
        }
    }

    boost::asio::io_context io;
    test::FakePort port;
    mad::Transport transport;
    std::map<std::uint32_t, mad::SmpResponse> results;
    std::vector<std::string> diagnostics;
    unsigned remaining = 0;
};

} // namespace

TEST_CASE("transport keeps at most `window` SMPs outstanding and matches every answer", "[transport]")
{
    for (bool reactor : {true, false}) {
        DYNAMIC_SECTION((reactor ? "reactor" : "polled"))
        {
            Harness h(reactor, {4, 50ms, 2, 1ms});
            // Answer in batches, newest first, so responses arrive out of order.
            std::vector<mad::Smp> held;
            h.port.responder = [&](const mad::Smp& req) {
                held.push_back(req);
                std::vector<mad::RawReceive> out;
                if (held.size() == 4 || req.attr_mod() == 99) {
                    for (auto it = held.rbegin(); it != held.rend(); ++it)
                        out.push_back(test::answer(*it, static_cast<std::uint8_t>(it->attr_mod())));
                    held.clear();
                }
                return out;
            };
            h.issue(100);
            h.io.run();
            REQUIRE(h.results.size() == 100);
            for (auto& [marker, r] : h.results) {
                CHECK(r.ok());
                CHECK(r.smp.attr_mod() == marker);
                CHECK(r.smp.data()[0] == static_cast<std::uint8_t>(marker));
                CHECK(r.attempts == 1);
            }
            CHECK(h.port.max_outstanding <= 4);
            CHECK(h.port.max_outstanding == 4);
            CHECK(h.transport.counters().sent == 100);
            CHECK(h.transport.counters().responses == 100);
            // TIDs are unique among the requests on the wire.
            std::set<std::uint64_t> tids;
            for (auto& s : h.port.sent) tids.insert(s.tid());
            CHECK(tids.size() == 100);
        }
    }
}

TEST_CASE("responses are read in batches of half a window before the requests they cause go out", "[transport]")
{
    for (bool reactor : {true, false}) {
        DYNAMIC_SECTION((reactor ? "reactor" : "polled"))
        {
            Harness h(reactor, {8, 50ms, 2, 1ms});
            // The SMA answers in bursts of 8: every answer arrives before the
            // transport reads any of them.
            std::vector<mad::Smp> held;
            h.port.responder = [&](const mad::Smp& req) {
                held.push_back(req);
                std::vector<mad::RawReceive> out;
                if (held.size() == 8) {
                    for (auto& r : held) out.push_back(test::answer(r, 1));
                    held.clear();
                }
                return out;
            };
            // Each completion issues the next request (as discovery and the
            // programmers do) until 64 have been answered.
            unsigned issued = 0, done = 0;
            std::function<void()> next = [&] {
                h.transport.async_request(node_info_request(issued++), [&](mad::SmpResponse r) {
                    CHECK(r.ok());
                    if (++done == 64) h.transport.stop();
                    else if (issued < 64) next();
                });
            };
            for (int i = 0; i < 8; ++i) next();
            h.io.run();
            REQUIRE(done == 64);
            CHECK(h.port.max_outstanding <= 8);
            // After the first window: four reads, then the four follow-ups
            // together, never one send per read.
            const std::string& ops = h.port.ops;
            REQUIRE(ops.size() == 128);
            CHECK(ops.substr(0, 8) == "SSSSSSSS");
            CHECK(ops.substr(8, 16) == "RRRRSSSSRRRRSSSS");
            INFO(ops);
            std::size_t switches = 0;
            for (std::size_t i = 1; i < ops.size(); ++i) switches += ops[i] == 'S' && ops[i - 1] == 'R';
            // 56 follow-ups (the first 8 requests follow nothing), 4 per burst.
            CHECK(switches == (64 - 8) / 4);
        }
    }
}

TEST_CASE("a lost SMP is retried under a new TID and a late answer is counted, not delivered twice", "[transport]")
{
    Harness h(true, {16, 20ms, 3, 1ms});
    std::map<std::uint32_t, int> attempts;
    std::vector<mad::Smp> dropped;
    h.port.responder = [&](const mad::Smp& req) {
        std::vector<mad::RawReceive> out;
        if (++attempts[req.attr_mod()] < 3) {
            dropped.push_back(req);
            return out;
        }
        out.push_back(test::answer(req, 7));
        // The answer to the first, timed-out attempt finally shows up too.
        out.push_back(test::answer(dropped.front(), 8));
        dropped.erase(dropped.begin());
        return out;
    };
    h.issue(1);
    h.io.run();
    REQUIRE(h.results.size() == 1);
    CHECK(h.results[0].ok());
    CHECK(h.results[0].attempts == 3);
    CHECK(h.results[0].smp.data()[0] == 7);
    CHECK(h.transport.counters().timeouts == 2);
    CHECK(h.transport.counters().sent == 3);
    CHECK(h.transport.counters().unmatched == 1);
    CHECK(h.port.sent[0].tid() != h.port.sent[1].tid());
}

TEST_CASE("an SMP nobody answers fails with timeout after every retry", "[transport]")
{
    for (bool reactor : {true, false}) {
        DYNAMIC_SECTION((reactor ? "reactor" : "polled"))
        {
            Harness h(reactor, {16, 10ms, 2, 1ms});
            h.port.responder = [](const mad::Smp&) { return std::vector<mad::RawReceive>{}; };
            auto start = std::chrono::steady_clock::now();
            h.issue(3);
            h.io.run();
            REQUIRE(h.results.size() == 3);
            for (auto& [m, r] : h.results) {
                CHECK(r.failure == mad::SmpFailure::timeout);
                CHECK(r.attempts == 3);
            }
            CHECK(h.transport.counters().sent == 9);
            CHECK(h.transport.counters().failed == 3);
            CHECK(std::chrono::steady_clock::now() - start >= 30ms);
        }
    }
}

TEST_CASE("a non-zero MAD status is reported, not retried", "[transport]")
{
    Harness h(true);
    h.port.responder = [](const mad::Smp& req) { return std::vector<mad::RawReceive>{test::answer(req, 0, 0x001c)}; };
    h.issue(1);
    h.io.run();
    CHECK(h.results[0].failure == mad::SmpFailure::bad_status);
    CHECK(h.results[0].status == 0x001c);
    CHECK(h.transport.counters().sent == 1);
}

TEST_CASE("malformed, foreign and unmatched MADs are counted, reported once per kind and dropped", "[transport]")
{
    Harness h(true);
    h.port.responder = [&](const mad::Smp& req) {
        std::vector<mad::RawReceive> out;
        mad::RawReceive shorty;
        shorty.length = 10;
        out.push_back(shorty);
        out.push_back(shorty);
        auto bad_version = test::answer(req, 1);
        bad_version.smp.bytes()[0] = 2;
        out.push_back(bad_version);
        auto foreign_class = test::answer(req, 1);
        foreign_class.smp.bytes()[1] = 0x04; // PerfMgt
        out.push_back(foreign_class);
        auto truncated = test::answer(req, 1);
        truncated.length = 100;
        out.push_back(truncated);
        auto stranger = test::answer(req, 1);
        stranger.smp.set_tid(0xdead0000beefULL);
        out.push_back(stranger);
        out.push_back(test::answer(req, 42));
        return out;
    };
    h.issue(1);
    h.io.run();
    CHECK(h.results[0].ok());
    CHECK(h.results[0].smp.data()[0] == 42);
    const auto& c = h.transport.counters();
    CHECK(c.malformed == 5);
    CHECK(c.unmatched == 1);
    // short, unexpected (version and class share a kind), truncated, unmatched
    CHECK(h.diagnostics.size() == 4);
}

TEST_CASE("unsolicited traps and Gets go to the handler; the SM can answer them", "[transport]")
{
    Harness h(true);
    std::vector<mad::RawReceive> got;
    h.transport.set_unsolicited_handler([&](const mad::RawReceive& r) {
        got.push_back(r);
        std::array<std::uint8_t, 64> data{};
        h.transport.respond(mad::make_get_resp(r.smp, data), r);
        h.transport.stop();
    });
    mad::RawReceive trap;
    trap.smp = mad::make_lid_request(mad::Method::trap, Lid(1), mad::attr::notice, 0, 77);
    trap.length = mad::mad_size;
    h.port.inject(trap);
    h.io.run();
    REQUIRE(got.size() == 1);
    CHECK(got[0].smp.attr_id() == mad::attr::notice);
    CHECK(h.transport.counters().unsolicited == 1);
    REQUIRE(h.port.responses.size() == 1);
    CHECK(h.port.responses[0].tid() == 77);
    CHECK(h.port.responses[0].is_response());
}

TEST_CASE("stop() fails pending and queued requests with shutdown; send failures are reported", "[transport]")
{
    Harness h(true, {2, 1000ms, 0, 1ms});
    h.port.responder = [](const mad::Smp&) { return std::vector<mad::RawReceive>{}; };
    h.issue(5);
    boost::asio::post(h.io, [&] { h.transport.stop(); });
    h.io.run();
    REQUIRE(h.results.size() == 5);
    for (auto& [m, r] : h.results) CHECK(r.failure == mad::SmpFailure::shutdown);

    Harness f(true);
    f.port.fail_sends = true;
    f.issue(2);
    f.io.run();
    for (auto& [m, r] : f.results) CHECK(r.failure == mad::SmpFailure::send_failed);
}

namespace {

// What umad2sim hands back for an SMP ibsim dropped somewhere on its path:
// the request itself with umad status 110 (ETIMEDOUT), at once.
mad::RawReceive reported_drop(const mad::Smp& req)
{
    mad::RawReceive r;
    r.smp = req;
    r.length = mad::mad_size;
    r.umad_status = 110;
    return r;
}

mad::TransportOptions loss_options()
{
    mad::TransportOptions o;
    o.window = 16;
    o.timeout = 200ms;
    o.retries = 1;
    o.drop_retries = 6;
    o.backoff_base = 2000us;
    o.backoff_max = 8000us;
    o.seed = 7;
    return o;
}

} // namespace

TEST_CASE("drops the port reports at once are resent after a growing, jittered backoff, on their own budget",
          "[transport][loss]")
{
    for (bool reactor : {true, false}) {
        DYNAMIC_SECTION((reactor ? "reactor" : "polled"))
        {
            Harness h(reactor, loss_options());
            std::vector<std::chrono::steady_clock::time_point> at;
            h.port.responder = [&](const mad::Smp& req) {
                at.push_back(std::chrono::steady_clock::now());
                // Five drops: more than `retries` (1), fewer than `drop_retries` (6).
                if (at.size() <= 5) return std::vector<mad::RawReceive>{reported_drop(req)};
                return std::vector<mad::RawReceive>{test::answer(req, 9)};
            };
            h.issue(1);
            h.io.run();
            REQUIRE(h.results.size() == 1);
            CHECK(h.results[0].ok());
            CHECK(h.results[0].attempts == 6);
            CHECK(h.transport.counters().drops == 5);
            CHECK(h.transport.counters().timeouts == 0);
            CHECK(h.transport.counters().backoffs == 5);
            REQUIRE(at.size() == 6);
            // Delay before resend k is in [d/2, d], d = 2, 4, 8, 8, 8 ms.
            const std::chrono::microseconds full[] = {2000us, 4000us, 8000us, 8000us, 8000us};
            for (std::size_t k = 0; k < 5; ++k) {
                const auto gap = std::chrono::duration_cast<std::chrono::microseconds>(at[k + 1] - at[k]);
                CHECK(gap >= full[k] / 2);
            }
            const auto total = at.back() - at.front();
            CHECK(total < 200ms); // no timeout was waited for
            std::set<std::uint64_t> tids;
            for (const auto& s : h.port.sent) tids.insert(s.tid());
            CHECK(tids.size() == 6);
        }
    }
}

TEST_CASE("an SMP dropped more often than drop_retries allows fails with timeout, without waiting for one",
          "[transport][loss]")
{
    Harness h(true, loss_options());
    h.port.responder = [](const mad::Smp& req) { return std::vector<mad::RawReceive>{reported_drop(req)}; };
    const auto start = std::chrono::steady_clock::now();
    h.issue(2);
    h.io.run();
    REQUIRE(h.results.size() == 2);
    for (auto& [m, r] : h.results) {
        CHECK(r.failure == mad::SmpFailure::timeout);
        CHECK(r.attempts == 7);
    }
    CHECK(h.transport.counters().failed == 2);
    CHECK(h.transport.counters().drops == 14);
    CHECK(std::chrono::steady_clock::now() - start < 200ms);
}

TEST_CASE("resends wait outside the window: other requests go out meanwhile", "[transport][loss]")
{
    auto o = loss_options();
    o.window = 2;
    o.backoff_base = 20000us;
    o.backoff_max = 20000us;
    Harness h(true, o);
    bool dropped = false;
    h.port.responder = [&](const mad::Smp& req) {
        if (req.attr_mod() == 0 && !dropped) {
            dropped = true;
            return std::vector<mad::RawReceive>{reported_drop(req)};
        }
        return std::vector<mad::RawReceive>{test::answer(req, static_cast<std::uint8_t>(req.attr_mod()))};
    };
    h.issue(20);
    h.io.run();
    REQUIRE(h.results.size() == 20);
    for (auto& [m, r] : h.results) CHECK(r.ok());
    // Request 0's resend (after >= 10 ms) went out after all the others.
    REQUIRE(h.port.sent.size() == 21);
    CHECK(h.port.sent.back().attr_mod() == 0);
}

TEST_CASE("the backoff is per target: an answer from a target resets it, other targets never wait",
          "[transport][loss]")
{
    auto o = loss_options();
    o.window = 1; // strictly one after the other
    o.backoff_base = 4000us;
    o.backoff_max = 64000us;
    Harness h(true, o);
    // Target A (path 0,1) drops its first three SMPs; target B (path 0,2) never.
    unsigned a_seen = 0;
    std::vector<std::chrono::steady_clock::time_point> a_times;
    h.port.responder = [&](const mad::Smp& req) {
        if (req.initial_path(1) == 1) {
            a_times.push_back(std::chrono::steady_clock::now());
            if (++a_seen <= 3) return std::vector<mad::RawReceive>{reported_drop(req)};
        }
        return std::vector<mad::RawReceive>{test::answer(req, 1)};
    };
    unsigned done = 0;
    std::vector<mad::SmpResponse> b_results;
    auto path_a = DrPath{}.extended(PortNum(1));
    auto path_b = DrPath{}.extended(PortNum(2));
    auto finish = [&] {
        if (++done == 6) h.transport.stop();
    };
    h.transport.async_request({mad::make_dr_request(mad::Method::get, path_a, mad::attr::node_info, 0, 0), Lid{}},
                              [&](mad::SmpResponse r) {
                                  CHECK(r.attempts == 4);
                                  // A answered: its next SMP goes without delay, once.
                                  h.transport.async_request(
                                      {mad::make_dr_request(mad::Method::get, path_a, mad::attr::node_info, 1, 0),
                                       Lid{}},
                                      [&](mad::SmpResponse r2) {
                                          CHECK(r2.attempts == 1);
                                          finish();
                                      });
                                  finish();
                              });
    for (std::uint32_t i = 0; i < 4; ++i)
        h.transport.async_request({mad::make_dr_request(mad::Method::get, path_b, mad::attr::node_info, i, 0), Lid{}},
                                  [&](mad::SmpResponse r) {
                                      b_results.push_back(r);
                                      finish();
                                  });
    h.io.run();
    REQUIRE(b_results.size() == 4);
    for (const auto& r : b_results) CHECK(r.attempts == 1);
    REQUIRE(a_times.size() == 5);
    // Delays 4, 8, 16 ms (each at least half), then no delay after the answer.
    CHECK(a_times[1] - a_times[0] >= 2ms);
    CHECK(a_times[2] - a_times[1] >= 4ms);
    CHECK(a_times[3] - a_times[2] >= 8ms);
    CHECK(a_times[4] - a_times[3] < 4ms);
}

TEST_CASE("a drop reported after half the timeout is the kernel's timeout: it spends the timeout budget",
          "[transport][loss]")
{
    auto o = loss_options();
    o.timeout = 20ms;
    o.retries = 1;
    Harness h(true, o);
    // Report each drop 15 ms after the send (the kernel timing out the
    // send itself), from a timer on the same loop.
    boost::asio::steady_timer later(h.io);
    std::vector<mad::Smp> waiting;
    h.port.responder = [&](const mad::Smp& req) {
        waiting.push_back(req);
        later.expires_after(15ms);
        later.async_wait([&](boost::system::error_code ec) {
            if (ec) return;
            for (auto& w : waiting) h.port.inject(reported_drop(w));
            waiting.clear();
        });
        return std::vector<mad::RawReceive>{};
    };
    h.issue(1);
    h.io.run();
    REQUIRE(h.results.size() == 1);
    CHECK(h.results[0].failure == mad::SmpFailure::timeout);
    CHECK(h.results[0].attempts == 2);
    CHECK(h.transport.counters().timeouts == 2);
    CHECK(h.transport.counters().drops == 0);
}

TEST_CASE("requests of another class version are answered 'bad version' once, other kinds dropped", "[transport]")
{
    Harness h(true);
    std::vector<mad::RawReceive> handed;
    // The last one injected is the only one handed over: it stops the run.
    h.transport.set_unsolicited_handler([&](const mad::RawReceive& r) {
        handed.push_back(r);
        h.transport.stop();
    });
    auto request = [](mad::Method m, std::uint8_t class_version, std::uint64_t tid) {
        mad::RawReceive r;
        r.smp = mad::make_lid_request(m, Lid(1), mad::attr::sm_info, 0, tid);
        r.smp.bytes()[2] = class_version;
        r.length = mad::mad_size;
        return r;
    };
    h.port.inject(request(mad::Method::get, 2, 11));
    h.port.inject(request(mad::Method::set, 0, 12));
    h.port.inject(request(mad::Method::trap, 2, 13)); // not a Get/Set: no answer
    h.port.inject(request(mad::Method::get, 1, 14)); // the right version reaches the SM
    h.io.run();
    REQUIRE(handed.size() == 1);
    CHECK(handed[0].smp.tid() == 14);
    REQUIRE(h.port.responses.size() == 2);
    CHECK(h.port.responses[0].tid() == 11);
    CHECK(h.port.responses[0].method() == static_cast<std::uint8_t>(mad::Method::get_resp));
    CHECK(h.port.responses[0].status() == mad::mad_status::bad_version);
    CHECK(h.port.responses[1].tid() == 12);
    CHECK(h.transport.counters().malformed == 3);
    CHECK(h.diagnostics.size() == 1);
}

TEST_CASE("a directed-route request longer than 63 hops is dropped unanswered", "[transport]")
{
    Harness h(true);
    std::vector<mad::RawReceive> handed;
    h.transport.set_unsolicited_handler([&](const mad::RawReceive& r) {
        handed.push_back(r);
        h.transport.stop();
    });
    DrPath longest;
    while (!longest.full()) longest = longest.extended(PortNum(1));
    for (unsigned hops : {64u, 200u, 255u, 63u}) {
        mad::RawReceive r;
        r.smp = mad::make_dr_request(mad::Method::get, longest, mad::attr::sm_info, 0, hops);
        r.smp.bytes()[7] = static_cast<std::uint8_t>(hops); // HopCount
        r.length = mad::mad_size;
        h.port.inject(r);
    }
    h.io.run();
    REQUIRE(handed.size() == 1); // only the 63-hop one
    CHECK(handed[0].smp.hop_count() == 63);
    CHECK(h.port.responses.empty());
    CHECK(h.transport.counters().malformed == 3);
    CHECK(h.diagnostics.size() == 1);
}

namespace {

mad::SmpRequest pma_request(std::uint8_t port)
{
    return {mad::perf::make_port_counters_get(PortNum(port)), Lid(7)};
}

std::size_t count_class(const std::vector<mad::Smp>& sent, std::uint8_t mgmt_class)
{
    std::size_t n = 0;
    for (const auto& s : sent) n += s.mgmt_class() == mgmt_class;
    return n;
}

} // namespace

TEST_CASE("PMA requests keep their own window and go out only while no SMP is queued or in flight",
          "[transport][perf]")
{
    mad::TransportOptions o{16, 200ms, 2, 1ms};
    o.perf_window = 4;
    Harness h(true, o);
    std::vector<mad::Smp> held;
    h.port.responder = [&](const mad::Smp& req) {
        held.push_back(req);
        return std::vector<mad::RawReceive>{};
    };
    auto answer_held = [&](std::uint8_t mgmt_class) {
        std::vector<mad::Smp> keep;
        for (auto& req : held) {
            if (req.mgmt_class() == mgmt_class)
                h.port.inject(test::answer(req, 1));
            else
                keep.push_back(req);
        }
        held = keep;
        h.io.poll();
    };
    unsigned pma_done = 0, smp_done = 0;
    for (std::uint8_t p = 1; p <= 10; ++p)
        h.transport.async_request(pma_request(p), [&](mad::SmpResponse r) {
            CHECK(r.ok());
            ++pma_done;
        });
    CHECK(count_class(h.port.sent, 0x04) == 4); // the PMA window
    CHECK(h.transport.perf_queued() == 6);

    // A sweep starts: its SMPs go out at once, beside the PMAs in flight.
    for (std::uint32_t i = 0; i < 3; ++i)
        h.transport.async_request(node_info_request(i), [&](mad::SmpResponse r) {
            CHECK(r.ok());
            ++smp_done;
        });
    REQUIRE(h.port.sent.size() == 7);
    CHECK(h.port.sent[4].mgmt_class() == mad::mgmt_class_directed_route);
    CHECK(h.port.sent[6].mgmt_class() == mad::mgmt_class_directed_route);

    // The PMAs answer; none follows while the SMPs are outstanding.
    answer_held(0x04);
    CHECK(pma_done == 4);
    CHECK(h.port.sent.size() == 7);
    CHECK(h.transport.perf_inflight() == 0);

    // The SMPs answer: the next PMAs go, at most four.
    answer_held(mad::mgmt_class_directed_route);
    CHECK(smp_done == 3);
    CHECK(count_class(h.port.sent, 0x04) == 8);
    CHECK(h.transport.perf_inflight() == 4);

    // An SMP queued after the PMAs goes before the PMAs still queued.
    h.transport.async_request(node_info_request(50), [&](mad::SmpResponse) { ++smp_done; });
    answer_held(0x04);
    CHECK(h.port.sent.back().mgmt_class() == mad::mgmt_class_directed_route);
    CHECK(count_class(h.port.sent, 0x04) == 8);
    answer_held(mad::mgmt_class_directed_route);
    CHECK(count_class(h.port.sent, 0x04) == 10);
    answer_held(0x04);
    CHECK(pma_done == 10);
    CHECK(h.port.max_outstanding <= 4 + 3);
    CHECK(h.transport.counters().perf_sent == 10);
    // The SMP counts sweeps report (and SMInfo's ActCount) leave PMAs out.
    CHECK(h.transport.counters().sent == 4);
    CHECK(h.transport.counters().requests == 4);
    // PerfMgt GMPs go LID-routed to QP1 (the port adds the address): class
    // 0x04, version 1.
    for (const auto& s : h.port.sent)
        if (s.mgmt_class() == 0x04) CHECK(s.class_version() == 1);
    h.transport.stop();
}

TEST_CASE("a PMA nobody answers gives up after its own, smaller retry budget", "[transport][perf]")
{
    mad::TransportOptions o{16, 10ms, 5, 1ms};
    o.perf_retries = 1;
    Harness h(true, o);
    h.port.responder = [](const mad::Smp&) { return std::vector<mad::RawReceive>{}; };
    std::optional<mad::SmpResponse> result;
    h.transport.async_request(pma_request(3), [&](mad::SmpResponse r) {
        result = r;
        h.transport.stop();
    });
    h.io.run();
    REQUIRE(result);
    CHECK(result->failure == mad::SmpFailure::timeout);
    CHECK(result->attempts == 2);
    CHECK(h.transport.counters().perf_failed == 1);
    CHECK(h.transport.counters().perf_sent == 2);
    CHECK(h.transport.counters().failed == 0);
    CHECK(h.transport.counters().requests == 0);
}

TEST_CASE("an answer of another class carrying a pending request's TID completes nothing", "[transport][perf]")
{
    Harness h(true, {16, 20ms, 0, 1ms});
    h.port.responder = [](const mad::Smp& req) {
        auto wrong = test::answer(req, 1);
        wrong.smp.bytes()[1] = 0x01; // an LID-routed SMP answer with the PMA request's TID
        return std::vector<mad::RawReceive>{wrong};
    };
    std::optional<mad::SmpResponse> result;
    h.transport.async_request(pma_request(1), [&](mad::SmpResponse r) {
        result = r;
        h.transport.stop();
    });
    h.io.run();
    REQUIRE(result);
    CHECK(result->failure == mad::SmpFailure::timeout);
    CHECK(h.transport.counters().malformed >= 1);
}

TEST_CASE("held PMA requests wait while the SM works, even with no SMP in flight", "[transport][perf]")
{
    mad::TransportOptions o{16, 200ms, 2, 1ms};
    o.perf_window = 4;
    Harness h(true, o);
    h.port.responder = [](const mad::Smp&) { return std::vector<mad::RawReceive>{}; };
    h.transport.hold_perf(true); // a sweep started: routes are computed, no SMP on the wire
    unsigned pma_done = 0;
    for (std::uint8_t p = 1; p <= 2; ++p)
        h.transport.async_request(pma_request(p), [&](mad::SmpResponse) { ++pma_done; });
    h.io.poll();
    CHECK(count_class(h.port.sent, 0x04) == 0);
    CHECK(h.transport.perf_queued() == 2);
    h.transport.async_request(node_info_request(0), [](mad::SmpResponse) {});
    CHECK(h.port.sent.size() == 1); // SMPs go out while PMAs are held
    CHECK(h.port.sent[0].mgmt_class() == mad::mgmt_class_directed_route);
    h.transport.hold_perf(false);
    CHECK(count_class(h.port.sent, 0x04) == 0); // still an SMP in flight
    h.port.inject(test::answer(h.port.sent[0], 1));
    h.io.poll();
    CHECK(count_class(h.port.sent, 0x04) == 2); // released and idle: they go
    CHECK(pma_done == 0);
}
