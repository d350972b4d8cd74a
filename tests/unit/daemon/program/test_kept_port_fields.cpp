// Fields a port answers a PortInfo Set without storing (kept_port_fields.h):
// recorded only when all else matched, one message per port, field and
// asked value, and the next plan asks for what the port keeps until the
// asked value changes.
#include "daemon/program/kept_port_fields.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using daemon::KeptPortFields;

namespace {

mad::PortInfo desired_info()
{
    mad::PortInfo d;
    d.port_state = mad::PortState::no_change;
    d.lid = Lid(7);
    d.vl_high_limit = 4;
    d.subnet_timeout = 18;
    d.master_sm_sl = 1;
    return d;
}

} // namespace

TEST_CASE("kept fields: a port that drops VLHighLimit and SubnetTimeout is recorded once", "[port]")
{
    KeptPortFields k;
    mad::PortInfo desired = desired_info();
    mad::PortInfo got = desired;
    got.port_state = mad::PortState::active; // commands are not settings
    got.vl_high_limit = 0;
    got.subnet_timeout = 31;
    const auto msgs = k.note(Guid(0x10), 1, got, desired);
    REQUIRE(msgs.size() == 2);
    CHECK(msgs[0].text == "keeps VLHighLimit 0, the policy's 4 is not applied");
    CHECK(msgs[0].warn);
    CHECK(msgs[1].text == "keeps SubnetTimeout 31, the SM's 18 is not applied");
    CHECK_FALSE(msgs[1].warn);
    CHECK(desired.vl_high_limit == 0);
    CHECK(desired.subnet_timeout == 31);
    CHECK(desired.master_sm_sl == 1);
    CHECK(k.kept(Guid(0x10), 1, KeptPortFields::Field::vl_high_limit) == 0u);
    CHECK_FALSE(k.kept(Guid(0x10), 2, KeptPortFields::Field::vl_high_limit));

    // The next plan asks for what the port keeps: no difference, no Set.
    mad::PortInfo next = desired_info();
    k.apply(Guid(0x10), 1, got, next);
    CHECK(next.vl_high_limit == 0);
    CHECK(next.subnet_timeout == 31);
    // The same answer again: recorded already, no message.
    mad::PortInfo again = desired_info();
    CHECK(k.note(Guid(0x10), 1, got, again).empty());

    // A new limit (reload) drops the record: the Set is tried once more,
    // and a port still dropping it is warned about for the new value.
    mad::PortInfo reloaded = desired_info();
    reloaded.vl_high_limit = 6;
    k.apply(Guid(0x10), 1, got, reloaded);
    CHECK(reloaded.vl_high_limit == 6);
    CHECK(reloaded.subnet_timeout == 31);
    CHECK_FALSE(k.kept(Guid(0x10), 1, KeptPortFields::Field::vl_high_limit));
    const auto msgs2 = k.note(Guid(0x10), 1, got, reloaded);
    REQUIRE(msgs2.size() == 1);
    CHECK(msgs2[0].text == "keeps VLHighLimit 0, the policy's 6 is not applied");
}

TEST_CASE("kept fields: an answer that differs elsewhere too records nothing", "[port]")
{
    KeptPortFields k;
    mad::PortInfo desired = desired_info();
    mad::PortInfo got = desired;
    got.vl_high_limit = 0;
    got.lid = Lid(9); // the Set was not taken
    CHECK(k.note(Guid(0x10), 1, got, desired).empty());
    CHECK(desired.vl_high_limit == 4);
    CHECK_FALSE(k.kept(Guid(0x10), 1, KeptPortFields::Field::vl_high_limit));
    // A port that changed what it holds since is asked for the desired value.
    mad::PortInfo holds = desired_info();
    holds.vl_high_limit = 0;
    mad::PortInfo plan = desired_info();
    k.note(Guid(0x10), 1, holds, plan);
    holds.vl_high_limit = 3;
    mad::PortInfo later = desired_info();
    k.apply(Guid(0x10), 1, holds, later);
    CHECK(later.vl_high_limit == 4);
}

TEST_CASE("kept fields: the state directory's text reads back to the same records; a bad line is named", "[port]")
{
    KeptPortFields k;
    mad::PortInfo desired = desired_info();
    mad::PortInfo got = desired;
    got.subnet_timeout = 31;
    got.master_sm_sl = 0;
    REQUIRE(k.note(Guid(0x0002c90200000010), 0, got, desired).size() == 2);
    const auto text = k.text();
    CHECK(text == "0x0002c90200000010 0 SubnetTimeout 18 31\n0x0002c90200000010 0 MasterSMSL 1 0\n");

    // A new process: the port is asked for what it keeps, no Set.
    auto back = KeptPortFields::parse("# what the ports keep\n" + text);
    CHECK(back.text() == text);
    mad::PortInfo next = desired_info();
    back.apply(Guid(0x0002c90200000010), 0, got, next);
    CHECK(next.subnet_timeout == 31);
    CHECK(next.master_sm_sl == 0);

    CHECK(KeptPortFields::parse("").empty());
    CHECK_THROWS_WITH(KeptPortFields::parse(text + "0x10 1 Timeout 18 31\n"), "3: unknown field 'Timeout'");
    CHECK_THROWS_WITH(KeptPortFields::parse("10 1 SubnetTimeout 18 31\n"),
                      "1: expected '0xGUID PORT FIELD ASKED HELD'");
    CHECK_THROWS_WITH(KeptPortFields::parse("0xzz 1 SubnetTimeout 18 31\n"), "1: '0xzz' is not a GUID");
    CHECK_THROWS_WITH(KeptPortFields::parse("0x10 1 SubnetTimeout\n"), "1: expected '0xGUID PORT FIELD ASKED HELD'");
}

TEST_CASE("kept fields: the revision moves with the records and only then", "[port]")
{
    // The sweep writes the state file only when the revision moved.
    KeptPortFields k;
    const auto r0 = k.revision();
    mad::PortInfo desired = desired_info();
    mad::PortInfo got = desired;
    got.subnet_timeout = 31;
    k.note(Guid(0x10), 1, got, desired);
    const auto r1 = k.revision();
    CHECK(r1 != r0);

    // A plan that keeps the record and the same answer noted again: no move.
    mad::PortInfo next = desired_info();
    k.apply(Guid(0x10), 1, got, next);
    mad::PortInfo again = desired_info();
    k.note(Guid(0x10), 1, got, again);
    CHECK(k.revision() == r1);

    // The port keeps another value for the same asked one: the record changes.
    mad::PortInfo other = desired_info();
    got.subnet_timeout = 30;
    k.note(Guid(0x10), 1, got, other);
    const auto r2 = k.revision();
    CHECK(r2 != r1);
    CHECK(k.kept(Guid(0x10), 1, KeptPortFields::Field::subnet_timeout) == 30u);

    // A new asked value drops the record.
    mad::PortInfo reloaded = desired_info();
    reloaded.subnet_timeout = 12;
    k.apply(Guid(0x10), 1, got, reloaded);
    CHECK(k.revision() != r2);
    CHECK_FALSE(k.kept(Guid(0x10), 1, KeptPortFields::Field::subnet_timeout));
}
