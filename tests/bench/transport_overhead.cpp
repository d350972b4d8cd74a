// What one SMP costs us, without I/O: the transport, its completion
// handlers and the coroutines that issue requests (as the programmers do),
// against a port that answers every request at once from memory. The
// simulator path adds syscalls and context switches on top (DEVELOPERS.md);
// this isolates the part that is our own code.
//
// usage: transport_overhead [--smps N] [--window W] [--workers K]
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

} // namespace

int main(int argc, char** argv)
{
    std::size_t smps = 1'000'000, window = 64, workers = 64;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        const auto v = static_cast<std::size_t>(std::strtoull(argv[i + 1], nullptr, 10));
        if (a == "--smps") smps = v;
        else if (a == "--window") window = v;
        else if (a == "--workers") workers = v;
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 64;
        }
    }
    boost::asio::io_context io;
    EchoPort port;
    mad::Transport transport(io, port, {static_cast<unsigned>(window), std::chrono::milliseconds(1000), 0,
                                        std::chrono::milliseconds(1)});
    transport.start();

    // One job per SMP, as the LFT and VL programmers run them.
    const DrPath path = *DrPath::parse("0,1,13,13,1");
    daemon::SmpData data{};
    std::size_t ok = 0;
    const auto start = std::chrono::steady_clock::now();
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            co_await daemon::run_jobs(smps, workers, [&](std::size_t i) -> boost::asio::awaitable<void> {
                auto r = co_await daemon::dr_set(transport, path, mad::attr::linear_forwarding_table,
                                                 static_cast<std::uint32_t>(i & 0xffff), data);
                ok += r.ok();
            });
            transport.stop();
        },
        boost::asio::detached);
    io.run();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%zu SMPs (%zu ok) in %.3f s: %.0f ns per SMP (window %zu, %zu workers)\n", smps, ok, secs,
                secs * 1e9 / static_cast<double>(smps), window, workers);
    return ok == smps ? 0 : 1;
}
