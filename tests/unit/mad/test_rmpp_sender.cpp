// The RMPP sender, packet by packet: segmentation, PayloadLength, the
// window the receiver's ACKs open, go-back-N after a timeout, giving up.
#include "mad/sa/rmpp_sender.h"

#include <catch2/catch.hpp>

#include <numeric>

using namespace ibsm::mad::sa;

namespace {

SaHeader response()
{
    SaHeader h;
    h.method = method::get_table_resp;
    h.tid = 42;
    h.attr_id = attr::node_record;
    h.attr_offset = 14;
    return h;
}

std::vector<std::uint8_t> payload(std::size_t n)
{
    std::vector<std::uint8_t> p(n);
    std::iota(p.begin(), p.end(), std::uint8_t{1});
    return p;
}

} // namespace

TEST_CASE("segments carry 200 payload bytes each with First/Last and PayloadLength", "[rmpp]")
{
    const auto data = payload(450); // 3 segments, 50 bytes in the last
    RmppSender s(response(), data);
    REQUIRE(s.segment_count() == 3);
    std::vector<std::uint8_t> joined;
    for (std::uint32_t n = 1; n <= 3; ++n) {
        const auto m = s.segment(n);
        const auto h = *decode_header(m);
        CHECK(h.tid == 42);
        CHECK(h.method == method::get_table_resp);
        CHECK(h.attr_offset == 14);
        CHECK(h.rmpp.version == 1);
        CHECK(h.rmpp.type == RmppType::data);
        CHECK(h.rmpp.active());
        CHECK(h.rmpp.data1 == n);
        CHECK(((h.rmpp.flags & rmpp_flag::first) != 0) == (n == 1));
        CHECK(((h.rmpp.flags & rmpp_flag::last) != 0) == (n == 3));
        joined.insert(joined.end(), m.begin() + header_size, m.end());
    }
    joined.resize(data.size());
    CHECK(joined == data);
    // 13.6.2.3: the whole transfer on the first, the last one's share on the last.
    CHECK(decode_header(s.segment(1))->rmpp.data2 == 3 * 220 - 150); // 3 x (20 + 200) less the padding
    CHECK(decode_header(s.segment(2))->rmpp.data2 == 0);
    CHECK(decode_header(s.segment(3))->rmpp.data2 == 20 + 50);

    RmppSender empty(response(), {});
    CHECK(empty.segment_count() == 1);
    CHECK(decode_header(empty.segment(1))->rmpp.data2 == 20);
    CHECK(decode_header(empty.segment(1))->rmpp.flags == (rmpp_flag::active | rmpp_flag::first | rmpp_flag::last));
}

TEST_CASE("the window opens with the receiver's ACKs", "[rmpp]")
{
    RmppSender s(response(), payload(200 * 10));
    REQUIRE(s.segment_count() == 10);
    CHECK(s.take_sendable() == std::vector<std::uint32_t>{1}); // window 1 until the first ACK
    CHECK(s.take_sendable().empty());
    CHECK(s.on_ack(1, 4) == RmppSender::AckResult::progress);
    CHECK(s.take_sendable() == std::vector<std::uint32_t>{2, 3, 4});
    CHECK(s.on_ack(3, 4) == RmppSender::AckResult::progress); // window not grown, but moved
    CHECK(s.take_sendable().empty());
    CHECK(s.on_ack(2, 4) == RmppSender::AckResult::ignored); // old
    CHECK(s.on_ack(4, 20) == RmppSender::AckResult::progress);
    CHECK(s.window_last() == 10); // clipped to the last segment
    CHECK(s.take_sendable() == std::vector<std::uint32_t>{5, 6, 7, 8, 9, 10});
    CHECK_FALSE(s.done());
    CHECK(s.on_ack(10, 10) == RmppSender::AckResult::done);
    CHECK(s.done());
    CHECK(s.on_ack(10, 10) == RmppSender::AckResult::ignored);
}

TEST_CASE("a timeout resends from the first unacknowledged segment; retries run out", "[rmpp]")
{
    RmppSender s(response(), payload(200 * 5), 2);
    CHECK(s.take_sendable() == std::vector<std::uint32_t>{1});
    CHECK(s.on_ack(1, 5) == RmppSender::AckResult::progress);
    CHECK(s.take_sendable() == std::vector<std::uint32_t>{2, 3, 4, 5});
    CHECK(s.on_ack(2, 5) == RmppSender::AckResult::progress); // 3 was lost
    CHECK(s.on_timeout());
    CHECK(s.take_sendable() == std::vector<std::uint32_t>{3, 4, 5});
    CHECK(s.on_timeout());
    CHECK(s.take_sendable() == std::vector<std::uint32_t>{3, 4, 5});
    CHECK_FALSE(s.on_timeout()); // a third timeout in a row: 2 retries spent
    CHECK(s.abort_status() == rmpp_status::too_many_retries);
    const auto a = *decode_header(s.abort_mad(s.abort_status()));
    CHECK(a.rmpp.type == RmppType::abort);
    CHECK(a.rmpp.status == rmpp_status::too_many_retries);
    CHECK(a.tid == 42);

    // Progress resets the retry count.
    RmppSender t(response(), payload(200 * 3), 1);
    (void)t.take_sendable();
    CHECK(t.on_timeout());
    CHECK(t.on_ack(1, 3) == RmppSender::AckResult::progress);
    (void)t.take_sendable();
    CHECK(t.on_timeout());
    CHECK(t.take_sendable() == std::vector<std::uint32_t>{2, 3});
}

TEST_CASE("ACKs the spec calls illegal abort the transfer", "[rmpp]")
{
    RmppSender s(response(), payload(200 * 4));
    (void)s.take_sendable();
    CHECK(s.on_ack(3, 4) == RmppSender::AckResult::abort); // segment 3 was never sent
    CHECK(s.abort_status() == rmpp_status::seg_num_too_big);
    RmppSender t(response(), payload(200 * 4));
    (void)t.take_sendable();
    CHECK(t.on_ack(1, 0) == RmppSender::AckResult::abort); // window behind the ACK
    CHECK(t.abort_status() == rmpp_status::unacceptable_newwin);
}
