#include "daemon/service/mkey_status.h"

namespace ibsm::daemon {

StatusMkey mkey_status(const MkeyBook& book, const TrapReceiver& traps, const MkeyRecovery& recovery)
{
    StatusMkey m;
    const auto& s = book.settings();
    if (s.enabled) {
        m.mode = s.ring.is_fixed() ? "fixed" : "per-port";
        m.protect_bits = s.protect_bits;
        m.lease_period_s = s.lease_period_s;
        m.fingerprint = s.ring.fingerprint();
    }
    const auto& c = book.counters();
    m.violations = traps.mkey_violations();
    m.incidents = c.unanswered;
    m.rotations = c.rotations_started;
    m.rotations_completed = c.rotations_completed;
    m.rotating = book.rotating();
    m.ports_stale = m.rotating ? book.stale() : 0;
    m.ports_lease_wait = recovery.waiting();
    return m;
}

} // namespace ibsm::daemon
