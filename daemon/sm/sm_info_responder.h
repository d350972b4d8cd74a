// Answers what other subnet agents ask the SM itself: SubnGet(SMInfo)
// addressed to our port gets a GetResp with our port GUID, priority, state
// and ActCount (`sminfo` from infiniband-diags relies on it), and our SM_Key
// only when the request presented it (IBA 14.4.1). SubnSet(SMInfo), the
// control packets other SMs send (HANDOVER, ACKNOWLEDGE, ...), go to a
// control handler (the SM election, sm_election.h) that says whether they
// are accepted; the answer is our SMInfo with status 0 or 0x001c. Traps go
// to a trap handler (the TrapReceiver); a Get/Set of another attribute is
// answered "unsupported method/attribute"; everything is counted and each
// kind logged once.
//
// Data structures: the SMInfo values and counters; it installs itself as the
// transport's unsolicited handler, so everything runs on the event loop.
#pragma once

#include "mad/sm_info.h"
#include "mad/transport.h"

#include <cstdint>
#include <functional>
#include <map>

namespace ibsm::daemon {

struct SmInfoCounters {
    std::uint64_t sm_info_answered = 0;
    std::uint64_t key_withheld = 0;   // Gets answered without our SM_Key
    std::uint64_t sets_accepted = 0;
    std::uint64_t sets_refused = 0;
    std::uint64_t traps = 0;
    std::uint64_t ignored = 0;              // not served (answered or not)
    std::uint64_t unsupported_answered = 0; // of those, Get/Set answered "unsupported attribute"
};

class SmInfoResponder {
public:
    SmInfoResponder(mad::Transport& transport, Guid port_guid, std::uint8_t priority);

    using TrapHandler = std::function<void(const mad::RawReceive&)>;
    // Called for a SubnSet(SMInfo) with its attribute modifier and the
    // sender's SMInfo; true accepts it. Runs before the answer is sent:
    // follow-ups (a sweep, an ACKNOWLEDGE) must be posted, not awaited.
    using ControlHandler = std::function<bool(std::uint32_t control, const mad::SmInfo& sender)>;

    // Installs the unsolicited handler (replacing any other). Traps go to
    // `traps` when given, else they are counted and dropped.
    void install(TrapHandler traps = {});
    // MASTER once the subnet is up; DISCOVERING before.
    void set_state(mad::SmState state) { state_ = state; }
    mad::SmState state() const { return state_; }
    void set_priority(std::uint8_t p) { priority_ = p; }
    void set_sm_key(std::uint64_t key) { sm_key_ = key; }
    // Without one, every SMInfo Set is refused.
    void set_control_handler(ControlHandler h) { control_ = std::move(h); }
    const SmInfoCounters& counters() const { return counters_; }

    // The SMInfo we report now (ActCount follows the SMPs we have sent),
    // with our SM_Key (callers decide whom to show it).
    mad::SmInfo current() const;

private:
    void on_unsolicited(const mad::RawReceive& r);
    void answer(const mad::RawReceive& r, mad::SmInfo si, std::uint16_t status);

    mad::Transport& transport_;
    Guid guid_;
    std::uint8_t priority_;
    std::uint64_t sm_key_ = 0;
    mad::SmState state_ = mad::SmState::discovering;
    ControlHandler control_;
    SmInfoCounters counters_;
    std::map<std::uint16_t, std::uint64_t> traps_by_number_;
    std::map<std::uint32_t, std::uint64_t> ignored_by_kind_;
    TrapHandler traps_;
};

} // namespace ibsm::daemon
