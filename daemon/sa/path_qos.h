// The QoS level of a path (IBA 15.2.5.16: the SA chooses SL, MTU, rate and
// packet lifetime within what the request allows) from the snapshot's
// compiled policy and SL/VL plan.
//
// Why apart from sa_paths: PathRecord, MultiPathRecord and MCMemberRecord
// all ask the same question (which level does this traffic get, and what
// does it do to the answer); one place keeps their answers the same.
//
// Algorithm: no policy (or an empty one) leaves the record as the routing
// made it: the fast path costs one pointer test. Otherwise the request
// (source and destination port GUIDs, ServiceID and QoSClass when the
// query names them, the P_Key the path was given) is matched once; the
// record's SL becomes the plan's host SL for (level SL, routing SL), its
// MTU and rate are capped by the level's, its packet lifetime is the
// level's when the level sets one (a loopback keeps 0). The query's own
// selectors are applied afterwards by the caller, so a level the query
// excludes (another SL, a larger MTU than the level allows) yields no
// record, as OpenSM answers a QoS conflict.
#pragma once

#include "daemon/core/subnet.h"
#include "mad/sa/records.h"
#include "qos/qos_policy.h"

#include <cstdint>
#include <optional>

namespace ibsm::daemon {

// What a query says that selects a level, beyond its two ends and P_Key.
struct QosAsk {
    std::optional<std::uint64_t> service_id;
    std::optional<std::uint16_t> qos_class;
};

// Whether the snapshot has a policy that can give a level (else the fast
// path: no matching at all).
inline bool qos_active(const SubnetSnapshot& s)
{
    return s.qos_policy && !s.qos_policy->empty();
}

// The level the policy gives `request` (index into policy levels), nullopt
// without a policy or a matching rule.
std::optional<std::size_t> qos_level(const SubnetSnapshot& s, const qos::Request& request);

// The SL a host uses for traffic of `level` (nullopt: none matched) on
// routing SL `routing_sl`: the plan's host_sl, or without a plan the
// level's SL (the routing's without a level).
std::uint8_t qos_host_sl(const SubnetSnapshot& s, std::optional<std::size_t> level, std::uint8_t routing_sl);

// Applies the level matching the path `pr` (its SGID/DGID GUIDs, its P_Key,
// `ask`) to `pr` as built from the routing (pr.sl the routing SL). Returns
// the level applied.
std::optional<std::size_t> apply_path_qos(const SubnetSnapshot& s, mad::sa::PathRecord& pr, const QosAsk& ask);

} // namespace ibsm::daemon
