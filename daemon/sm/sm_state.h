// Master/standby election between subnet managers (IBA 14.4.1), as pure
// decisions: each function takes the SM's own state and what it just
// learnt, and returns the next state, what to do, and why.
//
// Why: two SMs on one subnet must agree on one master without talking
// more than SMInfo Get/Set, and a standby must take over when the master
// dies. The rules are few but their corner cases (ties, keys, a master that
// finds a better SM, a standby whose master went standby) are easy to get
// wrong inside I/O code; as values with reasons (like routing/chain.h's
// refusals) they are unit-tested on their own and logged as they are.
//
// Data structures: SmIdentity (priority, port GUID, SM_Key) of this SM;
// PeerSm, another SM as a heavy sweep found it (its SMInfo and how to reach
// it); decisions carry the next mad::SmState, an action and a reason.
//
// Rules (OpenSM's osm_sm_state_mgr.c / osm_state_mgr.c behave the same;
// learnt from, not copied):
//  - Rank: the higher priority wins; equal priorities, the lower GUID.
//  - SM_Key: another SM takes part only when ours is 0 or it answered with
//    ours (a peer answers with its key only to a requester presenting it).
//  - After a heavy sweep, not MASTER: a MASTER elsewhere, or a higher SM
//    still DISCOVERING or STANDBY, makes us STANDBY polling it; otherwise
//    we configure the subnet and become MASTER once it is up.
//  - After a heavy sweep as MASTER: a higher SM in STANDBY gets the subnet
//    (HANDOVER), we go STANDBY and poll it; another MASTER that outranks us
//    makes us STANDBY too; one we outrank is left to hand over to us.
//  - Polling as STANDBY: an answer in MASTER state (or a higher SM still on
//    its way to master) resets the count; polling_retries + 1 misses in a
//    row mean the master is gone: DISCOVERING and a heavy sweep. A master
//    that answers but ranks below us is told with trap 144 (SM priority
//    changed) so its next sweep hands over.
//  - SMInfo Set (control packets, IBA table 180 attribute modifiers):
//    refused unless it presents our key, also when ours is 0 (a sender
//    presents its own key, so unlike an answer nothing is hidden: a
//    different key is another management domain or a forgery, and a
//    DISABLE from it must not switch our SM off); ACKNOWLEDGE only from a STANDBY sender,
//    HANDOVER/DISABLE/STANDBY/DISCOVER only from a MASTER. HANDOVER makes a
//    STANDBY (or DISCOVERING) SM MASTER with a heavy sweep and an
//    ACKNOWLEDGE back; DISABLE -> NOT-ACTIVE; STANDBY -> STANDBY polling the
//    sender; DISCOVER -> DISCOVERING and a heavy sweep.
#pragma once

#include "mad/sm_info.h"
#include "mad/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::daemon {

const char* to_string(mad::SmState s);

struct SmIdentity {
    std::uint8_t priority = 0; // 4 bits
    Guid guid;                 // the SM's port GUID
    std::uint64_t sm_key = 0;
};

// True when (pa, ga) outranks (pb, gb): higher priority, then lower GUID.
bool outranks(std::uint8_t pa, Guid ga, std::uint8_t pb, Guid gb);

// Another SM as a sweep found it.
struct PeerSm {
    mad::SmInfo info; // as it answered (info.guid is its port GUID)
    DrPath path;      // directed route to its port
    Lid lid;          // its port's LID (0 before the subnet is configured)
};

// Whether `answer` (an SMInfo another SM sent us) may take part in the
// election: nullopt when it may, else why not.
std::optional<std::string> untrusted(const SmIdentity& self, const mad::SmInfo& answer);

enum class SweepAction : std::uint8_t {
    configure, // program the subnet (MASTER once it is up)
    stand_by,  // program nothing; poll `peer`
    hand_over, // send HANDOVER to `peer`; once answered, STANDBY polling it
};

struct SweepDecision {
    SweepAction action = SweepAction::configure;
    mad::SmState next = mad::SmState::discovering;
    std::optional<PeerSm> peer;
    std::string reason;
    std::vector<std::string> ignored; // peers left out, with why
};

// What to do after a heavy sweep found `peers` (SMs other than us).
SweepDecision after_sweep(mad::SmState current, const SmIdentity& self, const std::vector<PeerSm>& peers);

enum class PollAction : std::uint8_t {
    alive,         // the master answered as a master (count reset)
    alive_lower,   // ... but ranks below us: send it trap 144 so it hands over
    missed,        // no (usable) answer; still within the retries
    take_over,     // polling_retries + 1 misses in a row: DISCOVERING, heavy sweep
};

struct PollDecision {
    PollAction action = PollAction::alive;
    unsigned misses = 0; // consecutive misses after this poll
    std::string reason;
};

// A STANDBY SM's poll of `master`: `answer` is its SMInfo (nullopt: no
// answer), `misses` the consecutive misses before this poll.
PollDecision after_poll(const SmIdentity& self, Guid master, const std::optional<mad::SmInfo>& answer,
                        unsigned misses, unsigned retries);

enum class ControlAction : std::uint8_t {
    refuse,      // answer with an error status, change nothing
    none,        // accepted, nothing to do
    sweep,       // accepted: heavy sweep (HANDOVER also sends ACKNOWLEDGE)
    stand_by,    // accepted: STANDBY, poll the sender
    disable,     // accepted: NOT-ACTIVE
};

struct ControlDecision {
    ControlAction action = ControlAction::refuse;
    mad::SmState next = mad::SmState::discovering;
    bool acknowledge = false; // send SMInfo Set(ACKNOWLEDGE) to the sender
    std::string reason;
};

// A SubnSet(SMInfo) with attribute modifier `control` whose payload is
// `sender` (its SMInfo, SM_Key as presented), received in state `current`.
ControlDecision on_control(mad::SmState current, const SmIdentity& self, std::uint32_t control,
                           const mad::SmInfo& sender);

// The SM_Key to put in an answer to a SubnGet(SMInfo) that presented
// `presented`: ours when it matches, else 0 (IBA 14.4.1: the key is not
// given away to a requester that does not know it).
std::uint64_t key_for_answer(const SmIdentity& self, std::uint64_t presented);

} // namespace ibsm::daemon
