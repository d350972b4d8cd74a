// libFuzzer harness for the receive path: mad::Transport fed by a fake
// MadPort whose receive queue is the fuzz input, with the daemon's
// unsolicited handlers installed as ibsmd installs them (SmInfoResponder,
// traps to the TrapReceiver).
//
// Input: a sequence of records, each
//   byte 0  flags: bit 0 the port reports a kernel send failure (umad
//           status != 0); bit 1 the record's TID is replaced by that of
//           outstanding request (bits 2..3), so matched responses are
//           reached without guessing 32-bit TIDs
//   byte 1  MAD length (0 means 256)
//   bytes   the MAD (fewer when the input ends first)
// Before the records are read, four requests are outstanding (the window
// holds them all).
//
// Checks: no crash/UB/leak; every answer the SM sends goes back to the
// request it answers (same TID, a response method); every request issued
// completes exactly once by the time the transport stops.
#include "daemon/core/events.h"
#include "daemon/sm/sm_info_responder.h"
#include "daemon/sweep/trap_receiver.h"
#include "mad/smp.h"
#include "mad/transport.h"

#include <boost/asio/io_context.hpp>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <span>

namespace {

using namespace ibsm;

class FuzzPort final : public mad::MadPort {
public:
    std::deque<mad::RawReceive> incoming;
    std::array<std::uint64_t, 4> request_tids{};
    unsigned sent = 0;

    bool send(const mad::Smp& smp, Lid, std::uint32_t) override
    {
        // Remember the TIDs of the first four requests for the records
        // that ask to answer them (retries get new TIDs: the latest wins).
        const auto slot = static_cast<std::size_t>(sent % request_tids.size());
        request_tids[slot] = smp.tid();
        ++sent;
        return true;
    }
    std::optional<mad::RawReceive> try_receive() override
    {
        if (incoming.empty()) return std::nullopt;
        auto r = std::move(incoming.front());
        incoming.pop_front();
        return r;
    }
    int fd() const override { return -1; }
    bool pollable_by_reactor() const override { return false; }
    bool wait_readable(int) override { return !incoming.empty(); }
    bool send_response(const mad::Smp& smp, const mad::RawReceive& request) override
    {
        // An answer must carry the request's TID and a response method.
        if (smp.tid() != request.smp.tid()) std::abort();
        if (smp.method() != static_cast<std::uint8_t>(mad::Method::get_resp) &&
            smp.method() != static_cast<std::uint8_t>(mad::Method::trap_repress))
            std::abort();
        return true;
    }
};

void quiet_logs()
{
    // Formatting still runs (a bad format argument is a finding); the
    // output goes nowhere so a run stays fast.
    static const bool once = [] {
        auto logger = std::make_shared<spdlog::logger>("fuzz", std::make_shared<spdlog::sinks::null_sink_mt>());
        logger->set_level(spdlog::level::trace);
        spdlog::set_default_logger(logger);
        return true;
    }();
    (void)once;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    quiet_logs();
    boost::asio::io_context io;
    FuzzPort port;
    mad::Transport transport(io, port, mad::TransportOptions{});
    daemon::EventQueue events(io.get_executor());
    daemon::SmInfoResponder responder(transport, Guid(0x0002c90300000001ull), 5);
    daemon::TrapReceiver traps(transport, events);
    responder.install([&traps](const mad::RawReceive& r) { traps.on_trap(r); });
    transport.start();

    unsigned completed = 0;
    constexpr unsigned requests = 4;
    for (unsigned i = 0; i < requests; ++i) {
        const auto path = DrPath{}.extended(PortNum(1)).extended(PortNum(static_cast<std::uint8_t>(i + 1)));
        transport.async_request(mad::SmpRequest{mad::make_dr_request(mad::Method::get, path, mad::attr::node_info, 0, 0), {}},
                                [&completed](mad::SmpResponse) { ++completed; });
    }
    // The window sent them at once (the receive loop re-posts itself while
    // the transport runs, so the io_context is only ever polled one
    // handler at a time until stop()).
    if (port.sent != requests) std::abort();

    std::span<const std::uint8_t> in(data, size);
    while (in.size() >= 2) {
        const std::uint8_t flags = in[0];
        const std::size_t want = in[1] == 0 ? mad::mad_size : in[1];
        in = in.subspan(2);
        const std::size_t n = std::min(want, in.size());
        mad::RawReceive r;
        r.smp = mad::Smp::from_bytes(in.first(n));
        r.length = n;
        r.umad_status = (flags & 0x01) ? 110 : 0; // ETIMEDOUT, as the kernel reports it
        if (flags & 0x02) r.smp.set_tid(port.request_tids[(flags >> 2) & 0x03]);
        in = in.subspan(n);
        port.incoming.push_back(r);
    }
    // Each turn of the simulator-style receive loop drains what is queued.
    for (unsigned turns = 0; !port.incoming.empty() && turns < 1000; ++turns) io.poll_one();
    if (!port.incoming.empty()) std::abort(); // the receive loop stopped reading
    transport.stop();
    io.poll();
    if (completed != requests) std::abort();
    return 0;
}
