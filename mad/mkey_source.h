// Which M_Key an SMP carries (IBA 14.2.4), asked by the transport at every
// send and told of every completion.
//
// Why here: every SMP the SM sends (discovery, the programmers, the light
// sweeper, SMInfo polling) goes through mad::Transport, and its M_Key must
// be the key of the port that checks it; putting the choice at the one
// place SMPs leave keeps the callers unaware of keys, and lets a retry try
// another key (during a rotation the port may hold the old or the new one).
// The transport knows nothing of GUIDs; the implementation (the daemon's
// key book) learns which port answers where from the completions.
#pragma once

#include "mad/smp.h"
#include "mad/types.h"

#include <cstdint>

namespace ibsm::mad {

struct SmpRequest;
struct SmpResponse;

class MkeySource {
public:
    virtual ~MkeySource() = default;
    // The M_Key of send number `attempt` (1-based) of `smp` (DR, or
    // LID-routed to `dlid`).
    virtual std::uint64_t key_for(const Smp& smp, Lid dlid, unsigned attempt) = 0;
    // The request finished: `sent` as last sent (its M_Key included) and
    // what came of it (an answer, or a failure after every retry).
    virtual void completed(const SmpRequest& sent, const SmpResponse& response) = 0;
};

} // namespace ibsm::mad
