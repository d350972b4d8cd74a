// The batch sender (core/smp_batch.h) over the transport's sources: every
// item is made, sent and answered once, in index order, within the window;
// losses are retried by the transport; single requests go before the
// batch's; two batches take turns; a stopped transport ends the batch.
#include "../support/fake_loop.h"

#include "daemon/core/smp_batch.h"
#include "daemon/core/smp_ops.h"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>

#include <map>
#include <stdexcept>
#include <string>

using namespace ibsm;

namespace {

mad::Smp block_get(std::size_t i)
{
    return mad::make_dr_request(mad::Method::get, DrPath{}.extended(PortNum(1)), mad::attr::linear_forwarding_table,
                                static_cast<std::uint32_t>(i), 0);
}

} // namespace

TEST_CASE("a batch sends every item once in index order, within the window, and answers each", "[core][batch]")
{
    test::Loop loop;
    // Answer in bursts of 5, newest first: answers arrive out of order.
    std::vector<mad::Smp> held;
    loop.port.responder = [&](const mad::Smp& r) {
        held.push_back(r);
        std::vector<mad::RawReceive> out;
        if (held.size() == 5 || r.attr_mod() == 99) {
            for (auto it = held.rbegin(); it != held.rend(); ++it)
                out.push_back(test::answer(*it, static_cast<std::uint8_t>(it->attr_mod())));
            held.clear();
        }
        return out;
    };
    std::map<std::size_t, mad::SmpResponse> answers;
    std::size_t made = 0;
    loop.run([&]() -> boost::asio::awaitable<int> {
        co_await daemon::send_batch(
            loop.transport, 100,
            [&](std::size_t i, mad::SmpRequest& r) {
                CHECK(i == made++);
                r.smp = block_get(i);
            },
            [&](std::size_t i, const mad::SmpResponse& r) {
                CHECK(answers.emplace(i, r).second);
            });
        co_return 0;
    });
    REQUIRE(answers.size() == 100);
    for (const auto& [i, r] : answers) {
        CHECK(r.ok());
        CHECK(r.smp.attr_mod() == i);
        CHECK(r.smp.data()[0] == static_cast<std::uint8_t>(i));
    }
    REQUIRE(loop.port.sent.size() == 100);
    for (std::size_t i = 0; i < 100; ++i) CHECK(loop.port.sent[i].attr_mod() == i);
    CHECK(loop.port.max_outstanding == 8); // the loop's window
    CHECK(loop.transport.counters().requests == 100);
}

TEST_CASE("a lost batch item is retried by the transport and answered once", "[core][batch]")
{
    test::Loop loop(/*retries=*/2);
    std::map<std::uint32_t, int> seen;
    loop.port.responder = [&](const mad::Smp& r) {
        // Items 3 and 7 are lost the first time; item 9 every time.
        const int n = ++seen[r.attr_mod()];
        if (r.attr_mod() == 9 || ((r.attr_mod() == 3 || r.attr_mod() == 7) && n == 1))
            return std::vector<mad::RawReceive>{};
        return std::vector<mad::RawReceive>{test::answer(r, 1)};
    };
    std::map<std::size_t, mad::SmpResponse> answers;
    loop.run([&]() -> boost::asio::awaitable<int> {
        co_await daemon::send_batch(
            loop.transport, 10, [&](std::size_t i, mad::SmpRequest& r) { r.smp = block_get(i); },
            [&](std::size_t i, const mad::SmpResponse& r) { CHECK(answers.emplace(i, r).second); });
        co_return 0;
    });
    REQUIRE(answers.size() == 10);
    CHECK(answers[3].ok());
    CHECK(answers[3].attempts == 2);
    CHECK(answers[7].ok());
    CHECK(answers[9].failure == mad::SmpFailure::timeout);
    CHECK(answers[9].attempts == 3);
    CHECK(seen[9] == 3);
    CHECK(loop.transport.counters().failed == 1);
}

TEST_CASE("single requests go before a batch's, and two batches take turns", "[core][batch]")
{
    test::Loop loop;
    loop.port.responder = [](const mad::Smp& r) { return std::vector<mad::RawReceive>{test::answer(r, 0)}; };
    using namespace boost::asio::experimental::awaitable_operators;
    auto batch = [&](std::uint16_t attr, std::size_t n) -> boost::asio::awaitable<void> {
        co_await daemon::send_batch(
            loop.transport, n,
            [&, attr](std::size_t i, mad::SmpRequest& r) {
                r.smp = mad::make_dr_request(mad::Method::get, DrPath{}, attr, static_cast<std::uint32_t>(i), 0);
            },
            [](std::size_t, const mad::SmpResponse& r) { CHECK(r.ok()); });
    };
    auto single = [&]() -> boost::asio::awaitable<void> {
        for (int i = 0; i < 3; ++i) {
            const auto r = co_await daemon::dr_get(loop.transport, DrPath{}, mad::attr::node_info, 0);
            CHECK(r.ok());
        }
    };
    loop.run([&]() -> boost::asio::awaitable<int> {
        co_await (batch(mad::attr::linear_forwarding_table, 40) && batch(mad::attr::switch_info, 4) && single());
        co_return 0;
    });
    std::string order;
    for (const auto& s : loop.port.sent)
        order += s.attr_id() == mad::attr::node_info ? 'N' : s.attr_id() == mad::attr::switch_info ? 'P' : 'L';
    INFO(order);
    CHECK(order.size() == 47);
    // The short batch's four SMPs (P) take turns with the long one's (L)
    // instead of waiting for all 40; the first NodeInfo Get (N), asked at
    // once, goes as soon as the window has room, before any batch's next.
    CHECK(order.find_last_of('P') < 20);
    CHECK(std::count(order.begin(), order.end(), 'N') == 3);
    CHECK(order.find('N') == 8);
}

TEST_CASE("a batch ends when the transport stops; unsent items are neither made nor answered", "[core][batch]")
{
    test::Loop loop;
    std::size_t made = 0, answered = 0, shut = 0;
    loop.port.responder = [](const mad::Smp& r) { return std::vector<mad::RawReceive>{test::answer(r, 0)}; };
    boost::asio::co_spawn(
        loop.io,
        [&]() -> boost::asio::awaitable<void> {
            co_await daemon::send_batch(
                loop.transport, 1000,
                [&](std::size_t i, mad::SmpRequest& r) {
                    ++made;
                    r.smp = block_get(i);
                },
                [&](std::size_t i, const mad::SmpResponse& r) {
                    ++answered;
                    shut += r.failure == mad::SmpFailure::shutdown;
                    if (i == 20) loop.transport.stop();
                });
        },
        [](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);
        });
    loop.io.run();
    // Items 0..20 were answered; those in flight then ended as shut down.
    CHECK(made > 21);
    CHECK(made <= 21 + 8);
    CHECK(answered == made);
    CHECK(made - shut == 21);
}

TEST_CASE("an exception from a batch's answer is rethrown after the items out have finished", "[core][batch]")
{
    test::Loop loop;
    loop.port.responder = [](const mad::Smp& r) { return std::vector<mad::RawReceive>{test::answer(r, 0)}; };
    std::size_t answered = 0;
    CHECK_THROWS_WITH(loop.run([&]() -> boost::asio::awaitable<int> {
        co_await daemon::send_batch(
            loop.transport, 100, [&](std::size_t i, mad::SmpRequest& r) { r.smp = block_get(i); },
            [&](std::size_t i, const mad::SmpResponse&) {
                ++answered;
                if (i == 10) throw std::logic_error("bug in an answer");
            });
        co_return 0;
    }),
                      "bug in an answer");
    // Nothing more was pulled after the failure; what was out finished.
    CHECK(loop.port.sent.size() < 30);
    CHECK(loop.transport.inflight() == 0);
    CHECK(answered == 11);
}
