#include "daemon/sm/sm_state.h"

namespace ibsm::daemon {

namespace {

std::string describe(const mad::SmInfo& si)
{
    return "SM " + si.guid.str() + " (priority " + std::to_string(si.priority) + ", " + to_string(si.sm_state) + ")";
}

bool peer_outranks(const PeerSm& p, const SmIdentity& self)
{
    return outranks(p.info.priority, p.info.guid, self.priority, self.guid);
}

// The highest-ranked of `peers` in `state`, if any.
const PeerSm* best_in(const std::vector<const PeerSm*>& peers, mad::SmState state)
{
    const PeerSm* best = nullptr;
    for (const auto* p : peers)
        if (p->info.sm_state == state &&
            (!best || outranks(p->info.priority, p->info.guid, best->info.priority, best->info.guid)))
            best = p;
    return best;
}

} // namespace

const char* to_string(mad::SmState s)
{
    switch (s) {
    case mad::SmState::not_active: return "NOT-ACTIVE";
    case mad::SmState::discovering: return "DISCOVERING";
    case mad::SmState::standby: return "STANDBY";
    case mad::SmState::master: return "MASTER";
    }
    return "?";
}

bool outranks(std::uint8_t pa, Guid ga, std::uint8_t pb, Guid gb)
{
    if (pa != pb) return pa > pb;
    return ga.value() < gb.value();
}

std::optional<std::string> untrusted(const SmIdentity& self, const mad::SmInfo& answer)
{
    if (answer.guid == self.guid) return "our own port";
    if (self.sm_key != 0 && answer.sm_key != self.sm_key)
        return describe(answer) + " answered without our SM_Key: not part of this subnet's election";
    return std::nullopt;
}

SweepDecision after_sweep(mad::SmState current, const SmIdentity& self, const std::vector<PeerSm>& peers)
{
    SweepDecision d;
    std::vector<const PeerSm*> trusted;
    for (const auto& p : peers) {
        if (auto why = untrusted(self, p.info))
            d.ignored.push_back(*why);
        else if (p.info.sm_state != mad::SmState::not_active)
            trusted.push_back(&p);
    }
    const bool master = current == mad::SmState::master;
    d.next = master ? mad::SmState::master : mad::SmState::discovering;

    // Another master: we yield unless we are master and outrank it (then it
    // is the one to hand over, C14-60.2.1).
    if (const auto* m = best_in(trusted, mad::SmState::master)) {
        if (!master || peer_outranks(*m, self)) {
            d.action = SweepAction::stand_by;
            d.next = mad::SmState::standby;
            d.peer = *m;
            d.reason = describe(m->info) + " is master" +
                       (peer_outranks(*m, self) ? "" : " (we rank higher, but a running master keeps the subnet)");
            return d;
        }
        d.reason = describe(m->info) + " also claims master and ranks below us: it is to hand over; we keep "
                                       "configuring";
        return d;
    }
    const PeerSm* higher = nullptr;
    for (const auto* p : trusted)
        if (peer_outranks(*p, self) &&
            (!higher || outranks(p->info.priority, p->info.guid, higher->info.priority, higher->info.guid)))
            higher = p;
    if (!higher) {
        d.action = SweepAction::configure;
        d.reason = trusted.empty() ? "no other SM" : "we rank highest of " + std::to_string(trusted.size() + 1) + " SMs";
        return d;
    }
    if (master) {
        if (higher->info.sm_state == mad::SmState::standby) {
            d.action = SweepAction::hand_over;
            d.next = mad::SmState::standby;
            d.peer = *higher;
            d.reason = describe(higher->info) + " ranks higher: handing the subnet over";
            return d;
        }
        // Higher but still discovering: it will find us master and stand
        // by (and then get the subnet from our next sweep).
        d.action = SweepAction::configure;
        d.reason = describe(higher->info) + " ranks higher but is not standing by yet";
        return d;
    }
    d.action = SweepAction::stand_by;
    d.next = mad::SmState::standby;
    d.peer = *higher;
    d.reason = describe(higher->info) + " ranks higher";
    return d;
}

PollDecision after_poll(const SmIdentity& self, Guid master, const std::optional<mad::SmInfo>& answer,
                        unsigned misses, unsigned retries)
{
    PollDecision d;
    auto miss = [&](std::string why) {
        d.misses = misses + 1;
        d.action = d.misses > retries ? PollAction::take_over : PollAction::missed;
        d.reason = std::move(why) + " (" + std::to_string(d.misses) + " of " + std::to_string(retries + 1) + ")";
        return d;
    };
    if (!answer) return miss("master SM " + master.str() + " did not answer");
    if (answer->guid != master)
        return miss("port of master SM " + master.str() + " answered as " + answer->guid.str());
    if (auto why = untrusted(self, *answer)) return miss(*why);
    const bool higher = outranks(answer->priority, answer->guid, self.priority, self.guid);
    if (answer->sm_state == mad::SmState::master) {
        d.action = higher ? PollAction::alive : PollAction::alive_lower;
        d.reason = higher ? "master alive" : describe(*answer) + " ranks below us: asking it to hand over";
        return d;
    }
    // A higher SM on its way to master (we stood by for it) counts as alive;
    // a lower one that went STANDBY or NOT-ACTIVE no longer runs the subnet.
    if (higher && (answer->sm_state == mad::SmState::discovering || answer->sm_state == mad::SmState::standby)) {
        d.action = PollAction::alive;
        d.reason = describe(*answer) + " is not master yet";
        return d;
    }
    return miss(describe(*answer) + " no longer runs the subnet");
}

ControlDecision on_control(mad::SmState current, const SmIdentity& self, std::uint32_t control,
                           const mad::SmInfo& sender)
{
    ControlDecision d;
    d.next = current;
    const std::string from = describe(sender);
    if (sender.sm_key != self.sm_key) {
        d.reason = "SMInfo Set from " + from + " without our SM_Key: refused";
        return d;
    }
    const bool from_master = sender.sm_state == mad::SmState::master;
    switch (control) {
    case mad::sm_control::acknowledge:
        if (sender.sm_state != mad::SmState::standby) {
            d.reason = "ACKNOWLEDGE from " + from + ", not from a STANDBY SM: refused";
            return d;
        }
        d.action = ControlAction::none;
        d.reason = "ACKNOWLEDGE from " + from + ": it took the subnet over";
        return d;
    case mad::sm_control::handover:
    case mad::sm_control::disable:
    case mad::sm_control::standby:
    case mad::sm_control::discover: break;
    default: d.reason = "SMInfo Set with unknown attribute modifier " + std::to_string(control) + ": refused"; return d;
    }
    if (!from_master) {
        d.reason = "SMInfo control " + std::to_string(control) + " from " + from + ", not from a MASTER: refused";
        return d;
    }
    switch (control) {
    case mad::sm_control::handover:
        if (current == mad::SmState::not_active) {
            d.reason = "HANDOVER from " + from + " while NOT-ACTIVE: refused";
            return d;
        }
        d.action = ControlAction::sweep;
        d.next = mad::SmState::master;
        d.acknowledge = current != mad::SmState::master;
        d.reason = "HANDOVER from " + from + ": taking the subnet over";
        return d;
    case mad::sm_control::disable:
        d.action = ControlAction::disable;
        d.next = mad::SmState::not_active;
        d.reason = "DISABLE from " + from;
        return d;
    case mad::sm_control::standby:
        if (current == mad::SmState::master) {
            d.reason = "STANDBY from " + from + " while MASTER: refused";
            return d;
        }
        d.action = ControlAction::stand_by;
        d.next = mad::SmState::standby;
        d.reason = "STANDBY from " + from;
        return d;
    default: // discover
        if (current != mad::SmState::standby) {
            d.reason = "DISCOVER from " + from + " while " + to_string(current) + ": refused";
            return d;
        }
        d.action = ControlAction::sweep;
        d.next = mad::SmState::discovering;
        d.reason = "DISCOVER from " + from;
        return d;
    }
}

std::uint64_t key_for_answer(const SmIdentity& self, std::uint64_t presented)
{
    return presented == self.sm_key ? self.sm_key : 0;
}

} // namespace ibsm::daemon
