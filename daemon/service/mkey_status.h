// The M_Key counters as the status reports them (publish/status_mkey.h
// knows none of their owners; main wires this function into the status
// reporter): the key book's settings, incidents and rotations, the trap
// receiver's Bad M_Key traps, the recovery's lease waits.
#pragma once

#include "daemon/core/mkey_book.h"
#include "daemon/publish/status.h"
#include "daemon/sweep/mkey_recovery.h"
#include "daemon/sweep/trap_receiver.h"

namespace ibsm::daemon {

StatusMkey mkey_status(const MkeyBook& book, const TrapReceiver& traps, const MkeyRecovery& recovery);

} // namespace ibsm::daemon
