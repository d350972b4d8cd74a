// What one SMP costs us, without I/O: the transport, its completion
// handlers and the coroutines that issue requests (as the programmers do),
// against a port that answers every request at once from memory. The
// simulator path adds syscalls and context switches on top (DEVELOPERS.md);
// this isolates the part that is our own code. Two ways of issuing: one
// coroutine per SMP under run_jobs (dr_set, as discovery and the PortInfo
// Sets do) and one batch (send_batch, as the LFT and P_Key blocks go);
// both print wall and CPU time per SMP.
//
// usage: transport_overhead [--smps N] [--window W] [--workers K] [--mode coroutines|batch|both]
#include "cpu_time.h"
#include "daemon/core/smp_batch.h"
#include "daemon/core/smp_ops.h"
#include "daemon/core/work_pool.h"
#include "mad/transport.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>

namespace {

using namespace ibsm;

// Answers every request with its GetResp; nothing is ever lost.
class EchoPort final : public mad::MadPort {
public:
    bool send(const mad::Smp& smp, Lid, std::uint32_t) override
    {
        mad::RawReceive r;
        r.smp = mad::make_get_resp(smp, std::span<const std::uint8_t>(smp.data().data(), mad::smp_data_size));
        r.length = mad::mad_size;
        rx_.push_back(r);
        return true;
    }
    std::optional<mad::RawReceive> try_receive() override
    {
        if (rx_.empty()) return std::nullopt;
        auto r = rx_.front();
        rx_.pop_front();
        return r;
    }
    int fd() const override { return -1; }
    bool pollable_by_reactor() const override { return false; }
    bool wait_readable(int) override { return !rx_.empty(); }
    bool send_response(const mad::Smp&, const mad::RawReceive&) override { return true; }

private:
    std::deque<mad::RawReceive> rx_;
};

// Runs `smps` LFT block Sets through a fresh transport one way; prints the
// cost per SMP; true when every one was answered.
bool run(const std::string& mode, std::size_t smps, std::size_t window, std::size_t workers)
{
    boost::asio::io_context io;
    EchoPort port;
    mad::Transport transport(io, port, {static_cast<unsigned>(window), std::chrono::milliseconds(1000), 0,
                                        std::chrono::milliseconds(1)});
    transport.start();

    const DrPath path = *DrPath::parse("0,1,13,13,1");
    daemon::SmpData data{};
    std::size_t ok = 0;
    const auto start = std::chrono::steady_clock::now();
    const double cpu0 = bench::cpu_seconds();
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            if (mode == "batch") {
                co_await daemon::send_batch(
                    transport, smps,
                    [&](std::size_t i, mad::SmpRequest& r) {
                        r.smp = mad::make_dr_request(mad::Method::set, path, mad::attr::linear_forwarding_table,
                                                     static_cast<std::uint32_t>(i & 0xffff), 0, data);
                    },
                    [&](std::size_t, const mad::SmpResponse& r) { ok += r.ok(); });
            } else {
                // One job per SMP, as the programmers ran them before batches.
                co_await daemon::run_jobs(smps, workers, [&](std::size_t i) -> boost::asio::awaitable<void> {
                    auto r = co_await daemon::dr_set(transport, path, mad::attr::linear_forwarding_table,
                                                     static_cast<std::uint32_t>(i & 0xffff), data);
                    ok += r.ok();
                });
            }
            transport.stop();
        },
        boost::asio::detached);
    io.run();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = bench::cpu_seconds() - cpu0;
    const auto n = static_cast<double>(smps);
    std::printf("%-10s %zu SMPs (%zu ok): %.3f s wall, %.3f s CPU: %.0f ns wall, %.0f ns CPU per SMP (window %zu%s)\n",
                mode.c_str(), smps, ok, secs, cpu, secs * 1e9 / n, cpu * 1e9 / n, window,
                mode == "batch" ? "" : (", " + std::to_string(workers) + " workers").c_str());
    return ok == smps;
}

} // namespace

int main(int argc, char** argv)
{
    std::size_t smps = 1'000'000, window = 64, workers = 64;
    std::string mode = "both";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        const auto v = static_cast<std::size_t>(std::strtoull(argv[i + 1], nullptr, 10));
        if (a == "--smps") smps = v;
        else if (a == "--window") window = v;
        else if (a == "--workers") workers = v;
        else if (a == "--mode") mode = argv[i + 1];
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 64;
        }
    }
    if (mode != "both" && mode != "batch" && mode != "coroutines") {
        std::fprintf(stderr, "--mode: coroutines, batch or both\n");
        return 64;
    }
    bool good = true;
    if (mode != "batch") good = run("coroutines", smps, window, workers) && good;
    if (mode != "coroutines") good = run("batch", smps, window, workers) && good;
    return good ? 0 : 1;
}
