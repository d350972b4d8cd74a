// SM_Key trust for SA requests (IBA 15.4.1; the SA header's SM_Key,
// C15-0.1.5; what 15.2.5's records withhold from untrusted requesters).
//
// Why: the SA answers any host; some of what it knows is the SM's alone
// (a port's M_Key, the SM's own SM_Key, services' keys, subscribers' QPs)
// and some of what it could be asked to change is the SM's business, not a
// host's. A request carrying the SM_Key the operator configured
// (sm.sm_key, non-zero) comes from a trusted manager; any other does not.
//
// The rules, applied by the agent before a handler runs and by the
// handlers on their answers:
//  - SM_Key 0, or trust off (sm.sm_key 0): untrusted.
//  - The configured key: trusted.
//  - Another non-zero key: the request is discarded (C15-0.1.5: the SM_Key
//    is 0 or the SM's), and logged.
//  - Untrusted Set/Delete of an attribute that is not a host's to write
//    (anything but ServiceRecord, MCMemberRecord, InformInfo): ERR_REQ_DENIED,
//    and logged naming the requester.
//  - Untrusted InformInfo subscriptions to the security traps (256-259):
//    ERR_REQ_DENIED; a subscription to all traps gets them only if trusted.
//  - Withheld from untrusted answers: PortInfoRecord's M_Key,
//    SMInfoRecord's SM_Key, ServiceRecord's ServiceKey, InformInfoRecord's
//    QPN, MCMemberRecord's PortGID/JoinState/ProxyJoin (one record per
//    group instead of per member).
//
// Data structures: RefusalLog, a per-kind rate limit on the log lines (one
// line per interval, with the count of those held back), so a host that
// hammers the SA cannot flood the log.
#pragma once

#include "mad/types.h"

#include <chrono>
#include <cstdint>
#include <optional>

namespace ibsm::daemon {

enum class SaTrust { untrusted, trusted, wrong_key };

// `configured`: sm.sm_key (0: nobody is trusted); `presented`: the SA
// header's SM_Key.
SaTrust sa_trust(std::uint64_t configured, std::uint64_t presented);

// Attributes a host may Set or Delete without the SM_Key.
bool host_writable(std::uint16_t attr_id);

// Notices only trusted subscribers get: Bad M_Key, Bad P_Key, Bad Q_Key,
// Bad P_Key at a switch external port (traps 256-259).
bool security_trap(std::uint16_t trap_number);

// At most one log line per `interval`; the rest are counted.
class RefusalLog {
public:
    using Clock = std::chrono::steady_clock;
    explicit RefusalLog(std::chrono::seconds interval = std::chrono::seconds(10)) : interval_(interval) {}
    // Whether to log now; when so, `held_back` (if given) is how many were
    // not logged since the last line.
    bool admit(Clock::time_point now, std::uint64_t* held_back = nullptr);
    std::uint64_t total() const { return total_; }

private:
    std::chrono::seconds interval_;
    std::optional<Clock::time_point> last_;
    std::uint64_t held_ = 0;
    std::uint64_t total_ = 0;
};

} // namespace ibsm::daemon
