// libFuzzer harness for RMPP reception (IBA 13.6.3.3): any sequence of
// segments, resends, control packets and timeouts fed to the pure receiver
// (mad/sa/rmpp_receiver.h) and, as umad packets, to the ibsim preload's
// endpoint (ibsim_rmpp/endpoint.h), which also has a transfer of its own
// being sent for the ACKs, STOPs and ABORTs to hit.
//
// Input: byte 0 the window (1..8), byte 1 the longest transfer (1..32
// segments); then operations, by the low 2 bits of an opcode byte:
//   0  a raw MAD: the next 256 bytes (zero-padded);
//   1  a DATA segment built from 4 bytes: segment number, flags (bits 0-2
//      RMPP flags, bit 3: the RMPP type from bits 4-6 instead of DATA, bit 7:
//      RMPP version 2), PayloadLength (2 bytes); opcode bit 2 picks one of
//      two TIDs;
//   2  time passes (5 s: every timer is due);
//   3  an ACK/STOP/ABORT for the endpoint's own transfer: type, segment
//      (2 bytes), NewWindowLast (2 bytes).
//
// Checks beyond no crash/UB/leak: the receiver's message never holds more
// than the header and the segments taken; once complete it is at least the
// header; every reply is an RMPP ACK, STOP or ABORT, Active, version 1; an
// ACK names the last segment taken in order; an aborted receiver takes
// nothing more; the endpoint writes only whole 256-byte MADs and hands the
// client nothing shorter than an RMPP header.
#include "ibsim_rmpp/endpoint.h"
#include "mad/sa/rmpp_receiver.h"
#include "mad/sa/rmpp_wire.h"
#include "mad/sa/sa_mad.h"

#include <arpa/inet.h>

#include <cstdlib>
#include <span>
#include <vector>

namespace {

namespace sa = ibsm::mad::sa;
using ibsm::ibsim_rmpp::Clock;
using ibsm::ibsim_rmpp::Endpoint;
using ibsm::ibsim_rmpp::Packet;
using ibsm::ibsim_rmpp::Settings;

struct Input {
    const std::uint8_t* p;
    std::size_t n;
    std::uint8_t byte() { return n ? (--n, *p++) : 0; }
    std::uint16_t u16() { return static_cast<std::uint16_t>(byte() << 8 | byte()); }
};

void check_reply(const sa::Mad& m)
{
    const auto r = sa::read_rmpp(m);
    if (r.version != 1 || !r.active()) std::abort();
    if (r.type != sa::RmppType::ack && r.type != sa::RmppType::stop && r.type != sa::RmppType::abort) std::abort();
}

void check_endpoint(Endpoint& ep)
{
    for (const auto& p : ep.take_outbox())
        if (p.mad.size() != sa::mad_size) std::abort();
    while (ep.has_ready()) {
        if (ep.front_ready().mad.size() < 36) std::abort();
        ep.pop_ready();
    }
}

sa::Mad segment_template(std::uint64_t tid)
{
    sa::SaHeader h;
    h.method = sa::method::get_table_resp;
    h.tid = tid;
    h.attr_id = sa::attr::node_record;
    h.attr_offset = 14;
    return sa::make_mad(h);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    Input in{data, size};
    const std::uint32_t window = in.byte() % 8 + 1;
    const std::uint32_t max_segments = in.byte() % 32 + 1;
    sa::RmppReceiver rx(sa::header_size, sa::RmppReceiver::Limits{window, max_segments});
    Endpoint ep(Settings{window, std::chrono::milliseconds(100), 2, std::chrono::milliseconds(1000), max_segments});
    ep.registered(1, 1);
    Clock::time_point now{};
    // The endpoint's own transfer (5 segments to LID 9), for control packets.
    Packet own;
    own.hdr.agent_id = 1;
    own.hdr.addr.lid = htons(9);
    {
        const auto t = segment_template(0x77);
        own.mad.assign(t.begin(), t.begin() + sa::header_size);
        own.mad[26] = sa::rmpp_flag::active;
        own.mad.resize(sa::header_size + 900, 0x5a);
    }
    ep.send(own, now);
    check_endpoint(ep);
    std::uint32_t taken = 0;

    while (in.n) {
        const std::uint8_t op = in.byte();
        Packet p;
        p.hdr.agent_id = 1;
        p.hdr.addr.lid = htons(9);
        switch (op & 3) {
        case 0:
        case 1: {
            sa::Mad m{};
            if ((op & 3) == 0) {
                for (auto& b : m) b = in.byte();
            } else {
                m = segment_template((op & 4) ? 0x1234 : 0x5678);
                const std::uint8_t seg = in.byte(), flags = in.byte();
                const std::uint16_t len = in.u16();
                sa::RmppHeader r{static_cast<std::uint8_t>((flags & 0x80) ? 2 : 1),
                                 (flags & 0x08) ? static_cast<sa::RmppType>((flags >> 4) & 7) : sa::RmppType::data,
                                 0x1f, static_cast<std::uint8_t>((flags & 7) | sa::rmpp_flag::active), 0, seg, len};
                sa::write_rmpp(m, r);
                std::fill(m.begin() + sa::header_size, m.end(), seg);
            }
            const bool was_aborted = rx.aborted();
            const auto before = rx.expected();
            const auto step = rx.on_segment(m);
            if (was_aborted && step.outcome != sa::RmppReceiver::Outcome::ignored) std::abort();
            if (step.reply) {
                check_reply(*step.reply);
                const auto r = sa::read_rmpp(*step.reply);
                if (r.type == sa::RmppType::ack && r.data1 != rx.expected() - 1) std::abort();
            }
            if (rx.expected() > before) ++taken;
            if (!rx.aborted() && rx.message().size() > sa::header_size + std::size_t{taken} * sa::data_size) std::abort();
            if (rx.complete() && rx.message().size() < sa::header_size) std::abort();
            p.mad.assign(m.begin(), m.end());
            ep.received(std::move(p), now);
            break;
        }
        case 2:
            now += std::chrono::seconds(5);
            if (auto abort = rx.on_timeout()) check_reply(*abort);
            ep.tick(now);
            break;
        case 3: {
            auto m = segment_template(0x77);
            m[3] = sa::method::get_table;
            const std::uint8_t type = in.byte();
            const std::uint16_t seg = in.u16(), win = in.u16();
            sa::write_rmpp(m, sa::RmppHeader{1, static_cast<sa::RmppType>(2 + type % 3), 0x1f, sa::rmpp_flag::active,
                                             0, seg, win});
            p.mad.assign(m.begin(), m.end());
            ep.received(std::move(p), now);
            break;
        }
        }
        check_endpoint(ep);
    }
    return 0;
}
