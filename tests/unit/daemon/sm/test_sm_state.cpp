// The master/standby decisions of daemon/sm/sm_state.h, as pure transitions:
// rank (priority, then lower GUID), SM_Key trust, what a heavy sweep
// decides from the SMs it found, polling misses and takeover, and the
// legality of the SMInfo control packets (IBA 14.4.1).
#include "daemon/sm/sm_state.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using daemon::PeerSm;
using daemon::SmIdentity;
using mad::SmState;

namespace {

SmIdentity me(std::uint8_t priority = 5, std::uint64_t guid = 0x20, std::uint64_t key = 0)
{
    return SmIdentity{priority, Guid(guid), key};
}

PeerSm peer(std::uint8_t priority, std::uint64_t guid, SmState state, std::uint64_t key = 0)
{
    PeerSm p;
    p.info.guid = Guid(guid);
    p.info.priority = priority;
    p.info.sm_state = state;
    p.info.sm_key = key;
    p.path = DrPath().extended(PortNum(1)).extended(PortNum(2));
    p.lid = Lid(7);
    return p;
}

mad::SmInfo info(std::uint8_t priority, std::uint64_t guid, SmState state, std::uint64_t key = 0)
{
    return peer(priority, guid, state, key).info;
}

} // namespace

TEST_CASE("rank: higher priority wins, equal priorities the lower GUID", "[sm_state]")
{
    CHECK(daemon::outranks(6, Guid(0x99), 5, Guid(0x01)));
    CHECK_FALSE(daemon::outranks(5, Guid(0x01), 6, Guid(0x99)));
    CHECK(daemon::outranks(5, Guid(0x10), 5, Guid(0x20)));
    CHECK_FALSE(daemon::outranks(5, Guid(0x20), 5, Guid(0x10)));
    CHECK_FALSE(daemon::outranks(5, Guid(0x20), 5, Guid(0x20))); // nobody outranks itself
}

TEST_CASE("a lone SM, or one that outranks every other, configures", "[sm_state]")
{
    auto d = daemon::after_sweep(SmState::discovering, me(), {});
    CHECK(d.action == daemon::SweepAction::configure);
    CHECK(d.next == SmState::discovering);
    CHECK(d.reason == "no other SM");

    d = daemon::after_sweep(SmState::discovering, me(), {peer(5, 0x30, SmState::standby), peer(2, 0x01, SmState::discovering)});
    CHECK(d.action == daemon::SweepAction::configure);
    CHECK(d.reason == "we rank highest of 3 SMs");
}

TEST_CASE("a running master keeps the subnet: a new SM stands by even when it ranks higher", "[sm_state]")
{
    for (std::uint8_t prio : {1, 15}) {
        auto d = daemon::after_sweep(SmState::discovering, me(prio), {peer(5, 0x30, SmState::master)});
        CHECK(d.action == daemon::SweepAction::stand_by);
        CHECK(d.next == SmState::standby);
        REQUIRE(d.peer);
        CHECK(d.peer->info.guid == Guid(0x30));
        CHECK(d.peer->path.str() == "0,1,2");
    }
    auto d = daemon::after_sweep(SmState::discovering, me(15), {peer(5, 0x30, SmState::master)});
    CHECK(d.reason == "SM 0x0000000000000030 (priority 5, MASTER) is master (we rank higher, but a running master "
                      "keeps the subnet)");
}

TEST_CASE("a higher SM still discovering or standing by makes a discovering SM stand by", "[sm_state]")
{
    auto d = daemon::after_sweep(SmState::discovering, me(5, 0x20), {peer(5, 0x10, SmState::discovering)});
    CHECK(d.action == daemon::SweepAction::stand_by);
    CHECK(d.peer->info.guid == Guid(0x10));
    // The higher of two is the one polled.
    d = daemon::after_sweep(SmState::discovering, me(5, 0x20),
                            {peer(6, 0x40, SmState::standby), peer(9, 0x50, SmState::standby)});
    CHECK(d.action == daemon::SweepAction::stand_by);
    CHECK(d.peer->info.guid == Guid(0x50));
    // A standby SM's own re-sweep (SIGHUP) decides the same way.
    d = daemon::after_sweep(SmState::standby, me(5, 0x20), {peer(5, 0x10, SmState::master)});
    CHECK(d.action == daemon::SweepAction::stand_by);
}

TEST_CASE("a master hands over to a higher SM in STANDBY, not to one still discovering", "[sm_state]")
{
    auto d = daemon::after_sweep(SmState::master, me(5, 0x20), {peer(7, 0x30, SmState::standby)});
    CHECK(d.action == daemon::SweepAction::hand_over);
    CHECK(d.next == SmState::standby);
    CHECK(d.peer->info.guid == Guid(0x30));
    CHECK(d.reason == "SM 0x0000000000000030 (priority 7, STANDBY) ranks higher: handing the subnet over");

    d = daemon::after_sweep(SmState::master, me(5, 0x20), {peer(7, 0x30, SmState::discovering)});
    CHECK(d.action == daemon::SweepAction::configure);
    CHECK(d.next == SmState::master);

    d = daemon::after_sweep(SmState::master, me(5, 0x20), {peer(5, 0x30, SmState::standby)});
    CHECK(d.action == daemon::SweepAction::configure);
}

TEST_CASE("two masters: the lower one stands by, the higher keeps configuring", "[sm_state]")
{
    auto d = daemon::after_sweep(SmState::master, me(5, 0x20), {peer(8, 0x30, SmState::master)});
    CHECK(d.action == daemon::SweepAction::stand_by);
    d = daemon::after_sweep(SmState::master, me(9, 0x20), {peer(8, 0x30, SmState::master)});
    CHECK(d.action == daemon::SweepAction::configure);
    CHECK(d.next == SmState::master);
}

TEST_CASE("with an SM_Key, SMs that do not answer with it take no part; NOT-ACTIVE ones neither", "[sm_state]")
{
    const auto self = me(5, 0x20, 0xabc);
    auto d = daemon::after_sweep(SmState::discovering, self,
                                 {peer(9, 0x30, SmState::master, 0), peer(9, 0x31, SmState::master, 0x123)});
    CHECK(d.action == daemon::SweepAction::configure);
    REQUIRE(d.ignored.size() == 2);
    CHECK(d.ignored[0] == "SM 0x0000000000000030 (priority 9, MASTER) answered without our SM_Key: not part of this "
                          "subnet's election");
    d = daemon::after_sweep(SmState::discovering, self, {peer(9, 0x30, SmState::master, 0xabc)});
    CHECK(d.action == daemon::SweepAction::stand_by);
    // Without a key of our own, any SM takes part.
    d = daemon::after_sweep(SmState::discovering, me(), {peer(9, 0x30, SmState::master, 0x123)});
    CHECK(d.action == daemon::SweepAction::stand_by);
    d = daemon::after_sweep(SmState::discovering, me(), {peer(9, 0x30, SmState::not_active)});
    CHECK(d.action == daemon::SweepAction::configure);
    // Our own port answering (a loop in the fabric) is never a peer.
    d = daemon::after_sweep(SmState::discovering, me(5, 0x20), {peer(9, 0x20, SmState::master)});
    CHECK(d.action == daemon::SweepAction::configure);
}

TEST_CASE("polling: an answering master resets the count; retries + 1 misses in a row take over", "[sm_state]")
{
    const auto self = me(5, 0x20);
    const Guid master(0x10);
    auto d = daemon::after_poll(self, master, info(5, 0x10, SmState::master), 2, 2);
    CHECK(d.action == daemon::PollAction::alive);
    CHECK(d.misses == 0);

    d = daemon::after_poll(self, master, std::nullopt, 0, 2);
    CHECK(d.action == daemon::PollAction::missed);
    CHECK(d.misses == 1);
    CHECK(d.reason == "master SM 0x0000000000000010 did not answer (1 of 3)");
    d = daemon::after_poll(self, master, std::nullopt, 1, 2);
    CHECK(d.action == daemon::PollAction::missed);
    d = daemon::after_poll(self, master, std::nullopt, 2, 2);
    CHECK(d.action == daemon::PollAction::take_over);
    CHECK(d.misses == 3);
    // No retries: the first miss takes over.
    CHECK(daemon::after_poll(self, master, std::nullopt, 0, 0).action == daemon::PollAction::take_over);
}

TEST_CASE("polling: what counts as the master answering", "[sm_state]")
{
    const auto self = me(5, 0x20);
    const Guid master(0x10);
    // Another port answering at the master's path is not the master.
    CHECK(daemon::after_poll(self, master, info(5, 0x11, SmState::master), 0, 3).action == daemon::PollAction::missed);
    // A higher SM we stood by for, not master yet: alive.
    CHECK(daemon::after_poll(self, master, info(5, 0x10, SmState::discovering), 0, 3).action ==
          daemon::PollAction::alive);
    // A lower one that went STANDBY no longer runs the subnet.
    auto d = daemon::after_poll(self, Guid(0x30), info(5, 0x30, SmState::standby), 0, 3);
    CHECK(d.action == daemon::PollAction::missed);
    // A master ranking below us: alive, and told so (trap 144).
    d = daemon::after_poll(me(9, 0x20), master, info(5, 0x10, SmState::master), 0, 3);
    CHECK(d.action == daemon::PollAction::alive_lower);
    // An answer without our key counts as none.
    d = daemon::after_poll(me(5, 0x20, 0xabc), master, info(5, 0x10, SmState::master, 0), 0, 3);
    CHECK(d.action == daemon::PollAction::missed);
    CHECK(daemon::after_poll(me(5, 0x20, 0xabc), master, info(5, 0x10, SmState::master, 0xabc), 0, 3).action ==
          daemon::PollAction::alive);
}

TEST_CASE("control packets: HANDOVER from a master makes a standby master and acknowledges", "[sm_state]")
{
    const auto self = me(5, 0x20);
    auto d = daemon::on_control(SmState::standby, self, mad::sm_control::handover, info(3, 0x10, SmState::master));
    CHECK(d.action == daemon::ControlAction::sweep);
    CHECK(d.next == SmState::master);
    CHECK(d.acknowledge);
    // Already master (two masters): re-sweep, nothing to acknowledge.
    d = daemon::on_control(SmState::master, self, mad::sm_control::handover, info(3, 0x10, SmState::master));
    CHECK(d.action == daemon::ControlAction::sweep);
    CHECK_FALSE(d.acknowledge);
    // Only a master hands over.
    d = daemon::on_control(SmState::standby, self, mad::sm_control::handover, info(3, 0x10, SmState::standby));
    CHECK(d.action == daemon::ControlAction::refuse);
    CHECK(d.next == SmState::standby);
    d = daemon::on_control(SmState::not_active, self, mad::sm_control::handover, info(3, 0x10, SmState::master));
    CHECK(d.action == daemon::ControlAction::refuse);
}

TEST_CASE("control packets: ACKNOWLEDGE only from a standby; the others only from a master", "[sm_state]")
{
    const auto self = me(5, 0x20);
    CHECK(daemon::on_control(SmState::standby, self, mad::sm_control::acknowledge, info(3, 0x10, SmState::standby))
              .action == daemon::ControlAction::none);
    CHECK(daemon::on_control(SmState::standby, self, mad::sm_control::acknowledge, info(3, 0x10, SmState::master))
              .action == daemon::ControlAction::refuse);
    auto d = daemon::on_control(SmState::standby, self, mad::sm_control::disable, info(3, 0x10, SmState::master));
    CHECK(d.action == daemon::ControlAction::disable);
    CHECK(d.next == SmState::not_active);
    d = daemon::on_control(SmState::discovering, self, mad::sm_control::standby, info(3, 0x10, SmState::master));
    CHECK(d.action == daemon::ControlAction::stand_by);
    CHECK(daemon::on_control(SmState::master, self, mad::sm_control::standby, info(3, 0x10, SmState::master)).action ==
          daemon::ControlAction::refuse);
    d = daemon::on_control(SmState::standby, self, mad::sm_control::discover, info(3, 0x10, SmState::master));
    CHECK(d.action == daemon::ControlAction::sweep);
    CHECK(d.next == SmState::discovering);
    CHECK(daemon::on_control(SmState::standby, self, mad::sm_control::disable, info(3, 0x10, SmState::discovering))
              .action == daemon::ControlAction::refuse);
    d = daemon::on_control(SmState::standby, self, 9, info(3, 0x10, SmState::master));
    CHECK(d.action == daemon::ControlAction::refuse);
    CHECK(d.reason == "SMInfo Set with unknown attribute modifier 9: refused");
}

TEST_CASE("control packets without our SM_Key are refused; answers show the key only to who presents it",
          "[sm_state]")
{
    const auto self = me(5, 0x20, 0xabc);
    auto d = daemon::on_control(SmState::standby, self, mad::sm_control::handover, info(3, 0x10, SmState::master, 1));
    CHECK(d.action == daemon::ControlAction::refuse);
    CHECK(d.reason ==
          "SMInfo Set from SM 0x0000000000000010 (priority 3, MASTER) without our SM_Key: refused");
    CHECK(daemon::on_control(SmState::standby, self, mad::sm_control::handover, info(3, 0x10, SmState::master, 0xabc))
              .action == daemon::ControlAction::sweep);
    // Our key 0 is a key like any other: a Set presenting another is refused.
    CHECK(daemon::on_control(SmState::master, me(), mad::sm_control::disable, info(15, 0x10, SmState::master, 0xdead))
              .action == daemon::ControlAction::refuse);
    CHECK(daemon::on_control(SmState::master, me(), mad::sm_control::disable, info(15, 0x10, SmState::master, 0))
              .action == daemon::ControlAction::disable);
    CHECK(daemon::key_for_answer(self, 0xabc) == 0xabc);
    CHECK(daemon::key_for_answer(self, 0) == 0);
    CHECK(daemon::key_for_answer(self, 0xabd) == 0);
}
