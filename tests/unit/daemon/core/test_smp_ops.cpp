// The SMP helpers the programmers share: directed-route Get and Set as the
// port receives them, the text of a failure, and the bounded list of
// failure texts a report keeps.
#include "../support/fake_loop.h"

#include "daemon/core/smp_ops.h"

#include <catch2/catch.hpp>

using namespace ibsm;

TEST_CASE("dr_get and dr_set send directed-route SMPs along the path and complete with the answer", "[core]")
{
    test::Loop loop;
    loop.port.responder = [](const mad::Smp& r) { return std::vector<mad::RawReceive>{test::answer(r, 0x42)}; };
    const DrPath path = DrPath{}.extended(PortNum(1)).extended(PortNum(7));

    const auto got = loop.run([&] { return daemon::dr_get(loop.transport, path, mad::attr::port_info, 7); });
    REQUIRE(got.ok());
    CHECK(got.smp.data()[0] == 0x42);
    daemon::SmpData data{};
    data[0] = 0xaa;
    data[63] = 0x55;
    const auto set =
        loop.run([&] { return daemon::dr_set(loop.transport, path, mad::attr::switch_info, 0, data); });
    CHECK(set.ok());

    REQUIRE(loop.port.sent.size() == 2);
    const auto& g = loop.port.sent[0];
    CHECK(g.directed_route());
    CHECK(g.method() == static_cast<std::uint8_t>(mad::Method::get));
    CHECK(g.attr_id() == mad::attr::port_info);
    CHECK(g.attr_mod() == 7);
    CHECK(g.hop_count() == 2);
    CHECK(g.initial_path(1) == 1);
    CHECK(g.initial_path(2) == 7);
    const auto& s = loop.port.sent[1];
    CHECK(s.method() == static_cast<std::uint8_t>(mad::Method::set));
    CHECK(s.attr_id() == mad::attr::switch_info);
    CHECK(s.data()[0] == 0xaa);
    CHECK(s.data()[63] == 0x55);
}

TEST_CASE("an unanswered SMP completes with a timeout, described as such", "[core]")
{
    test::Loop loop;
    loop.port.responder = [](const mad::Smp&) { return std::vector<mad::RawReceive>{}; };
    const auto r = loop.run([&] { return daemon::dr_get(loop.transport, DrPath{}, mad::attr::node_info, 0); });
    CHECK(r.failure == mad::SmpFailure::timeout);
    CHECK(daemon::failure_text(r) == "timeout");
}

TEST_CASE("failure_text names the status in hex, and the attempt when it was not the first", "[core]")
{
    mad::SmpResponse r;
    r.failure = mad::SmpFailure::bad_status;
    r.status = 0x001c;
    r.attempts = 1;
    CHECK(daemon::failure_text(r) == "bad status 0x001c");
    r.attempts = 3;
    CHECK(daemon::failure_text(r) == "bad status 0x001c on attempt 3");
    r.status = 0x8000;
    CHECK(daemon::failure_text(r) == "bad status 0x8000 on attempt 3");
    r.failure = mad::SmpFailure::send_failed;
    CHECK(daemon::failure_text(r) == "send failed");
}

TEST_CASE("a report counts every failure and keeps the first few texts", "[core]")
{
    struct Report {
        std::uint64_t failed = 0;
        std::vector<std::string> failures;
    } report;
    for (std::size_t i = 0; i < daemon::max_failures_kept + 5; ++i)
        daemon::note_failure(report, "port " + std::to_string(i));
    CHECK(report.failed == daemon::max_failures_kept + 5);
    REQUIRE(report.failures.size() == daemon::max_failures_kept);
    CHECK(report.failures.front() == "port 0");
    CHECK(report.failures.back() == "port " + std::to_string(daemon::max_failures_kept - 1));
}
