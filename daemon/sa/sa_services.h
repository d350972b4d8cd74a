// ServiceRecords (IBA 15.2.5.14): hosts register the services they offer
// (Set), others find them (Get/GetTable by component mask), owners remove
// them (Delete); each record lives for its lease.
//
// Why in the SA, not the snapshot: records come from hosts, not from the
// fabric; they survive re-routes. A record whose port has left the subnet
// stays until its lease ends (OpenSM does the same).
//
// Data structures: records keyed by (ServiceID, ServiceGID, ServiceP_Key),
// the identity IBA gives a ServiceRecord (a Set without ServiceP_Key in its
// mask: the default partition's 0xFFFF), each with its expiry (none for
// lease 0xFFFFFFFF or a Set without ServiceLease). Expired records are
// dropped whenever the store is read. The clock is injected so lease tests
// need no sleeping.
#pragma once

#include "daemon/sa/sa_agent.h"
#include "mad/sa/records.h"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

namespace ibsm::daemon {

class ServiceRecords {
public:
    using Clock = std::chrono::steady_clock;
    explicit ServiceRecords(std::function<Clock::time_point()> now = [] { return Clock::now(); })
        : now_(std::move(now))
    {
    }

    // The SA handler for Get, GetTable, Set and Delete of ServiceRecord.
    SaAnswer handle(const SaRequest& req);
    void register_with(SaAgent& agent);

    std::size_t size() const { return records_.size(); }

private:
    using Key = std::tuple<std::uint64_t, mad::Gid, std::uint16_t>;
    struct Entry {
        mad::sa::ServiceRecord record;
        std::optional<Clock::time_point> expires;
    };

    void expire();
    // The record as answered: ServiceLease = seconds left; the ServiceKey
    // only to a trusted requester (IBA 15.2.5.14).
    std::vector<std::uint8_t> answer(const Entry& e, bool trusted) const;

    std::function<Clock::time_point()> now_;
    std::map<Key, Entry> records_;
};

} // namespace ibsm::daemon
