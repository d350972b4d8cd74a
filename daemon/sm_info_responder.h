// Answers what other subnet agents ask the SM itself: SubnGet(SMInfo)
// addressed to our port gets a GetResp with our port GUID, priority, state
// MASTER and ActCount (`sminfo` from infiniband-diags relies on it). Traps go
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
    std::uint64_t traps = 0;
    std::uint64_t ignored = 0;              // not served (answered or not)
    std::uint64_t unsupported_answered = 0; // of those, Get/Set answered "unsupported attribute"
};

class SmInfoResponder {
public:
    SmInfoResponder(mad::Transport& transport, Guid port_guid, std::uint8_t priority);

    using TrapHandler = std::function<void(const mad::RawReceive&)>;

    // Installs the unsolicited handler (replacing any other). Traps go to
    // `traps` when given, else they are counted and dropped.
    void install(TrapHandler traps = {});
    // MASTER once the subnet is up; DISCOVERING before.
    void set_state(mad::SmState state) { state_ = state; }
    const SmInfoCounters& counters() const { return counters_; }

    // The SMInfo we report now (ActCount follows the SMPs we have sent).
    mad::SmInfo current() const;

private:
    void on_unsolicited(const mad::RawReceive& r);

    mad::Transport& transport_;
    Guid guid_;
    std::uint8_t priority_;
    mad::SmState state_ = mad::SmState::discovering;
    SmInfoCounters counters_;
    std::map<std::uint16_t, std::uint64_t> traps_by_number_;
    std::map<std::uint32_t, std::uint64_t> ignored_by_kind_;
    TrapHandler traps_;
};

} // namespace ibsm::daemon
