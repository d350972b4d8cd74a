// InformInfo subscriptions (IBA 13.4.8.3, 15.2.5.12) and the Reports they
// cause: a host asks the SA (Set InformInfo, Subscribe 1) to be told of
// notices, generic or vendor-specific, by trap number (or all), type,
// producer and issuer: traps 64/65 (a GID came into / went out of service,
// which the SA makes itself), the traps switches and CAs send the SM (128
// link state changed, 144 local changes, ...) and, for trusted subscribers
// only, the security traps 256-259 (sa_trust.h). The SA forwards each
// matching Notice as a Report to the address the subscription came from
// and resends it until the host answers ReportResp (the agent's
// send_report does the retries). As OpenSM, any InformInfo is taken: one
// for events that never come costs a vector entry.
//
// Why here: traps reach the SM port (TrapReceiver represses and folds them
// for the scheduler); forwarding them is the SA's side of the same notice,
// hooked next to it. 64/65 have no switch behind them: the SA derives them
// when a newly confirmed snapshot gains or loses endports.
//
// Data structures: subscriptions in a vector (a handful per host), each
// with the subscriber's LID (the Report's destination, with the QPN the
// Set came from, kept as InformInfo.QPN), its GID, an enumeration number
// and the InformInfo as set.
#pragma once

#include "daemon/sa/sa_agent.h"
#include "daemon/sa/sa_trust.h"
#include "mad/notice.h"
#include "mad/sa/records.h"

#include <cstdint>
#include <vector>

namespace ibsm::daemon {

struct InformCounters {
    std::uint64_t subscribed = 0;
    std::uint64_t unsubscribed = 0;
    std::uint64_t notices = 0;   // notices offered for forwarding
    std::uint64_t forwarded = 0; // Reports started
    std::uint64_t denied = 0;    // untrusted subscriptions to security traps refused
};

class InformRegistry {
public:
    explicit InformRegistry(SaAgent& agent) : agent_(agent) {}

    // Set(InformInfo) and Get/GetTable(InformInfoRecord).
    SaAnswer set_inform_info(const SaRequest& req);
    SaAnswer inform_info_records(const SaRequest& req);
    void register_with(SaAgent& agent);

    // A Notice (trap) the SM received or made: Reports to every matching
    // subscriber (66 and 67, multicast groups created and deleted, are made
    // by mcast_service.h); the security traps 256-259 to trusted subscribers
    // only.
    void forward(const mad::Notice& n);
    // A received SubnTrap MAD (the trap receiver's input).
    void on_trap_mad(const mad::RawReceive& r);
    // A new confirmed snapshot: trap 64 for endports it gained, 65 for
    // those it lost (none for the first).
    void on_snapshot(const SnapshotPtr& before, const SnapshotPtr& after);

    std::size_t size() const { return subs_.size(); }
    const InformCounters& counters() const { return counters_; }

    struct Subscription {
        Lid lid;
        mad::Gid gid{};
        std::uint16_t enumeration = 0;
        mad::sa::InformInfo info;
        bool trusted = false; // set with the SM_Key: security traps reach it
    };
    const std::vector<Subscription>& subscriptions() const { return subs_; }

private:
    SaAgent& agent_;
    std::vector<Subscription> subs_;
    std::uint16_t next_enum_ = 0;
    InformCounters counters_;
    RefusalLog denied_log_;
};

// Whether `info` (a subscription) asks for notice `n` (generic, trap number
// or 0xFFFF, type or 0xFFFF, producer type or 0xFFFFFF, issuer LID in range
// or range begin 0xFFFF).
bool inform_matches(const mad::sa::InformInfo& info, const mad::Notice& n);

} // namespace ibsm::daemon
