// The RMPP receiver (IBA 13.6.3.3), packet by packet: reassembly against our
// own sender, the ACK of each window, resends after a lost segment or a
// lost ACK, and the ABORT/STOP (with its status) for each kind of bad
// segment and for a sender gone quiet.
#include "mad/sa/rmpp_receiver.h"
#include "mad/sa/rmpp_sender.h"

#include <catch2/catch.hpp>

#include <functional>
#include <numeric>

using namespace ibsm::mad::sa;

namespace {

SaHeader response()
{
    SaHeader h;
    h.method = method::get_table_resp;
    h.tid = 0x0000000500000077ULL;
    h.attr_id = attr::node_record;
    h.attr_offset = 14;
    return h;
}

std::vector<std::uint8_t> payload(std::size_t n)
{
    std::vector<std::uint8_t> p(n);
    std::iota(p.begin(), p.end(), std::uint8_t{3});
    return p;
}

RmppHeader rmpp_of(const Mad& m)
{
    return read_rmpp(m);
}

// Runs a whole transfer: the sender's segments go to the receiver except
// the ones `lose` drops (by transmission count); its ACKs go back. Returns
// how many segments were transmitted.
unsigned transfer(RmppSender& s, RmppReceiver& r, const std::function<bool(unsigned)>& lose = {})
{
    unsigned sent = 0;
    for (int round = 0; round < 1000 && !r.complete() && !r.aborted(); ++round) {
        auto batch = s.take_sendable();
        if (batch.empty()) {
            REQUIRE(s.on_timeout());
            continue;
        }
        for (auto n : batch) {
            ++sent;
            if (lose && lose(sent)) continue;
            auto step = r.on_segment(s.segment(n));
            if (step.reply) {
                const auto a = rmpp_of(*step.reply);
                if (a.type == RmppType::ack) s.on_ack(a.data1, a.data2);
            }
        }
    }
    return sent;
}

} // namespace

TEST_CASE("the receiver reassembles what the sender segments, ACKing each window", "[rmpp]")
{
    const auto data = payload(1234); // 7 segments, 34 bytes in the last
    RmppSender s(response(), data);
    RmppReceiver r(rmpp_data_offset(mgmt_class), RmppReceiver::Limits{3, 100});
    std::vector<std::uint32_t> acked;
    for (int round = 0; round < 20 && !r.complete(); ++round) {
        for (auto n : s.take_sendable()) {
            auto step = r.on_segment(s.segment(n));
            if (!step.reply) {
                CHECK(step.outcome == RmppReceiver::Outcome::ignored);
                continue;
            }
            const auto a = rmpp_of(*step.reply);
            REQUIRE(a.type == RmppType::ack);
            acked.push_back(a.data1);
            s.on_ack(a.data1, a.data2);
            // An ACK goes the other way: GetTable, same TID, no data.
            CHECK((*step.reply)[3] == method::get_table);
            CHECK(decode_header(*step.reply)->tid == response().tid);
        }
    }
    REQUIRE(r.complete());
    CHECK(s.done());
    // Window 1 first (the sender's), then 3 per ACK, and the last segment.
    CHECK(acked == std::vector<std::uint32_t>{1, 4, 7});
    const auto& m = r.message();
    REQUIRE(m.size() == header_size + data.size());
    CHECK(std::equal(data.begin(), data.end(), m.begin() + header_size));
    const auto h = decode_header(m);
    CHECK(h->method == method::get_table_resp);
    CHECK(h->attr_offset == 14);
    CHECK((h->rmpp.flags & rmpp_flag::first) != 0);
}

TEST_CASE("a lost segment is dropped until the sender goes back, a lost ACK is answered again", "[rmpp]")
{
    const auto data = payload(2000); // 10 segments
    SECTION("segment 5 lost once")
    {
        RmppSender s(response(), data);
        RmppReceiver r(header_size, RmppReceiver::Limits{4, 100});
        transfer(s, r, [](unsigned k) { return k == 5; });
        REQUIRE(r.complete());
        CHECK(std::equal(data.begin(), data.end(), r.message().begin() + header_size));
    }
    SECTION("a resent segment gets the last ACK again, also after completion")
    {
        RmppSender s(response(), payload(300)); // 2 segments
        RmppReceiver r(header_size, RmppReceiver::Limits{4, 100});
        auto first = r.on_segment(s.segment(1));
        REQUIRE(first.outcome == RmppReceiver::Outcome::ack);
        auto again = r.on_segment(s.segment(1));
        REQUIRE(again.outcome == RmppReceiver::Outcome::ack);
        CHECK(rmpp_of(*again.reply).data1 == 1);
        CHECK(rmpp_of(*again.reply).data2 == 5);
        auto last = r.on_segment(s.segment(2));
        REQUIRE(last.outcome == RmppReceiver::Outcome::complete);
        auto late = r.on_segment(s.segment(2));
        REQUIRE(late.outcome == RmppReceiver::Outcome::ack);
        CHECK(rmpp_of(*late.reply).data1 == 2);
    }
    SECTION("a segment beyond the window is not taken")
    {
        RmppSender s(response(), data);
        RmppReceiver r(header_size, RmppReceiver::Limits{2, 100});
        r.on_segment(s.segment(1)); // window now ends at 3
        CHECK(r.on_segment(s.segment(2)).outcome == RmppReceiver::Outcome::ignored);
        CHECK(r.on_segment(s.segment(3)).outcome == RmppReceiver::Outcome::ack);
        CHECK(r.window_last() == 5);
        CHECK(r.expected() == 4);
        CHECK(r.on_segment(s.segment(5)).outcome == RmppReceiver::Outcome::ignored); // a gap
        CHECK(r.expected() == 4);
    }
}

TEST_CASE("bad segments abort with the status IBA 13.6.2.1 names", "[rmpp]")
{
    RmppSender s(response(), payload(1000));
    auto seg = [&](std::uint32_t n, auto&& edit) {
        Mad m = s.segment(n);
        auto h = read_rmpp(m);
        edit(h);
        write_rmpp(m, h);
        return m;
    };
    auto expect_abort = [&](RmppReceiver& r, const Mad& m, RmppType type, std::uint8_t status) {
        const auto step = r.on_segment(m);
        REQUIRE(step.outcome == RmppReceiver::Outcome::aborted);
        REQUIRE(step.reply);
        const auto a = read_rmpp(*step.reply);
        CHECK(a.type == type);
        CHECK(a.status == status);
        CHECK(r.aborted());
        CHECK(r.abort_status() == status);
        // Nothing more is taken.
        CHECK(r.on_segment(s.segment(1)).outcome == RmppReceiver::Outcome::ignored);
    };
    RmppReceiver r1(header_size), r2(header_size), r3(header_size), r4(header_size), r5(header_size), r6(header_size);
    expect_abort(r1, seg(1, [](RmppHeader& h) { h.version = 2; }), RmppType::abort, rmpp_status::unsupported_version);
    expect_abort(r2, seg(1, [](RmppHeader& h) { h.type = static_cast<RmppType>(7); }), RmppType::abort,
                 rmpp_status::bad_rmpp_type);
    expect_abort(r3, seg(1, [](RmppHeader& h) { h.status = 5; }), RmppType::abort, rmpp_status::illegal_status);
    expect_abort(r4, seg(1, [](RmppHeader& h) { h.flags = rmpp_flag::active; }), RmppType::abort,
                 rmpp_status::inconsistent_first);
    REQUIRE(r5.on_segment(s.segment(1)).outcome == RmppReceiver::Outcome::ack);
    expect_abort(r5, seg(2, [](RmppHeader& h) { h.flags |= rmpp_flag::first; }), RmppType::abort,
                 rmpp_status::inconsistent_first);
    // The last segment says less than the first announced.
    REQUIRE(r6.on_segment(s.segment(1)).outcome == RmppReceiver::Outcome::ack);
    expect_abort(r6, seg(2, [](RmppHeader& h) { h.flags |= rmpp_flag::last; h.data2 = 220; }), RmppType::abort,
                 rmpp_status::inconsistent_last);

    SECTION("a transfer longer than the receiver takes is refused with STOP")
    {
        RmppReceiver small(header_size, RmppReceiver::Limits{8, 3});
        for (std::uint32_t n = 1; n <= 3; ++n) small.on_segment(s.segment(n));
        expect_abort(small, s.segment(4), RmppType::stop, rmpp_status::resources_exhausted);
    }
}

TEST_CASE("a sender gone quiet is aborted with T2L; before segment 1 there is nothing to abort", "[rmpp]")
{
    RmppSender s(response(), payload(1000));
    RmppReceiver idle(header_size);
    CHECK_FALSE(idle.on_timeout());
    RmppReceiver r(header_size);
    r.on_segment(s.segment(1));
    const auto abort = r.on_timeout();
    REQUIRE(abort);
    CHECK(read_rmpp(*abort).type == RmppType::abort);
    CHECK(read_rmpp(*abort).status == rmpp_status::total_time_too_long);
    CHECK(decode_header(*abort)->tid == response().tid);
    CHECK_FALSE(r.on_timeout());
}

TEST_CASE("any RMPP class: a raw header is repeated on every segment and comes back whole", "[rmpp]")
{
    // A vendor class (0x30..0x4F): 40-byte header, 216 data bytes a segment.
    std::vector<std::uint8_t> header(40, 0);
    header[0] = 1;
    header[1] = 0x31;
    header[2] = 1;
    header[3] = 0x81;
    for (std::size_t i = 8; i < 16; ++i) header[i] = static_cast<std::uint8_t>(i);
    for (std::size_t i = 36; i < 40; ++i) header[i] = static_cast<std::uint8_t>(0xa0 + i); // OUI + reserved
    header[26] = rmpp_flag::active;
    REQUIRE(rmpp_data_offset(0x31) == 40);
    const auto data = payload(500); // 3 segments of 216
    RmppSender s(std::span<const std::uint8_t>(header), data);
    REQUIRE(s.segment_count() == 3);
    for (std::uint32_t n = 1; n <= 3; ++n) {
        const auto m = s.segment(n);
        CHECK(std::equal(header.begin() + 36, header.end(), m.begin() + 36));
        CHECK(std::equal(header.begin(), header.begin() + 24, m.begin()));
    }
    RmppReceiver r(rmpp_data_offset(0x31), RmppReceiver::Limits{1, 100});
    transfer(s, r);
    REQUIRE(r.complete());
    REQUIRE(r.message().size() == 40 + data.size());
    CHECK(std::equal(data.begin(), data.end(), r.message().begin() + 40));
    CHECK(std::equal(header.begin() + 36, header.end(), r.message().begin() + 36));
}
