// Multicast for the subnet, beside its partitions (partition/ and
// pkey_programmer.h): the SA's MCMemberRecord handler (join, leave, query
// over mcast::GroupTable) and the multicast forwarding tables that follow
// the groups.
//
// Why: IPoIB on every host joins its partition's broadcast group when its
// port goes ACTIVE, so joins arrive in a burst of hundreds right after
// SUBNET UP; each must be answered at once (the SA never blocks), but
// recomputing and pushing the trees once per join would send the same
// blocks hundreds of times. So answers are immediate and forwarding
// follows in batches. The batches are pushed by the sweep scheduler, the
// one sender of Sets to the switches (sweep_scheduler.h): a push of its
// own would race a sweep's and use a snapshot the sweep is replacing.
//
// Data structures: the GroupTable (state across generations: memberships
// survive re-routes); the snapshot the SA answers from and the ports' facts
// (MTU, rate, P_Keys) derived from it, cached per generation; the
// MftProgrammer's confirmed blocks; a `dirty` flag, whether a push is
// requested from the scheduler and whether one is under way.
//
// Algorithm: a join/leave that changes who receives, and every new
// snapshot (after a heavy sweep or re-route: the tree's links may have
// changed, ports may be gone and lose their memberships), mark the tables
// dirty and, unless a request is outstanding, push one McastTablesEvent
// that asks the scheduler to call push() no earlier than `batch` from now
// (joins meanwhile only mark the tables dirty: one push for the burst).
// push() computes every group's tree (mcast/tree.h) over the current
// snapshot's fabric and lets the MftProgrammer send the blocks that
// differ; a join during the push asks again. Each snapshot's partitions
// (partition/partitions.h) bring their groups: the IPoIB broadcast group
// of each partition with ipoib and its `mgid=` groups, created permanent;
// a group whose partition is gone (or whose parameters the partition no
// longer gives) is deleted with its members, as is any group joined with
// the P_Key of a partition that no longer exists.
//
// Notices: every group created (trap 66, when it gains its first full
// member) and deleted (trap 67: its last full member left, it left the
// fabric, or its partition went) goes, after the operation that caused it,
// to the notice sink main.cpp wires to the InformInfo subscribers
// (sa_inform.h), as OpenSM's osm_multicast.c reports them.
#pragma once

#include "daemon/core/events.h"
#include "daemon/core/subnet.h"
#include "daemon/program/mft_programmer.h"
#include "daemon/sa/sa_agent.h"
#include "mad/notice.h"
#include "mad/transport.h"
#include "mcast/groups.h"
#include "partition/partitions.h"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>

namespace ibsm::daemon {

struct McastSettings {
    std::uint64_t subnet_prefix = 0xfe80000000000000ULL;
    std::uint8_t packet_life_time = 18; // of the groups the SM creates (sm.packet_life_time)
    std::chrono::milliseconds batch{20}; // joins gathered before the trees are pushed
    MftSettings mft;
};

struct McastStats {
    std::uint64_t joins = 0;     // Set answered ok
    std::uint64_t leaves = 0;    // Delete answered ok
    std::uint64_t queries = 0;
    std::uint64_t refused = 0;   // Set/Delete answered with an error status
    std::uint64_t pushes = 0;    // tree computations pushed to the switches
    std::uint64_t blocks_sent = 0;
    std::uint64_t blocks_dirty = 0; // after the last push
    std::uint64_t unreachable = 0;  // members the last push could not reach
};

class McastService {
public:
    // Requests for pushes go to `events`, read by the sweep scheduler.
    McastService(EventQueue& events, mad::Transport& transport, McastSettings settings);
    McastService(const McastService&) = delete;
    McastService& operator=(const McastService&) = delete;

    // Serves MCMemberRecord (Get, GetTable, Set, Delete) and
    // MulticastForwardingTableRecord (Get, GetTable) on `sa`.
    void install(SaAgent& sa);
    // Where traps 66 and 67 go (the InformInfo registry's forward).
    void set_notices(std::function<void(const mad::Notice&)> sink) { notices_ = std::move(sink); }
    // A generation the switches confirmed: memberships of ports no longer
    // in the fabric end, and the forwarding tables are to be pushed again.
    void on_snapshot(SnapshotPtr snapshot);
    // The scheduler's work for a McastTablesEvent: the trees over the
    // current snapshot, and the MFT blocks that differ sent. Never throws
    // (a failure is logged; the next request tries again).
    boost::asio::awaitable<void> push();

    // The SA request handler (public for tests).
    SaAnswer on_request(const SaRequest& request);
    // MulticastForwardingTableRecords (IBA 15.2.5.8): the (block, position)
    // entries a switch of the snapshot confirmed, up to its highest block
    // in use (none for a switch that forwards no MLID), under its LID, as
    // OpenSM's osm_sa_mft_record.c orders them (block, then position).
    SaAnswer mft_records(const SaRequest& request) const;

    const mcast::GroupTable& groups() const { return groups_; }
    const McastStats& stats() const { return stats_; }
    // The switches' tables are not yet in step with the groups: a push is
    // requested from the scheduler or under way.
    bool pushing() const { return requested_ || in_push_; }

private:
    const mcast::PortFacts* facts(const SubnetSnapshot& snap, Guid port);
    // A join that creates a group: the QoS level matching its P_Key and the
    // creating port (as source) gives the SL, MTU, rate and packet lifetime
    // the request leaves open (an SL absent from the mask is then no longer
    // missing). Joins of existing groups and unmatched ones are unchanged.
    void with_qos_level(const SubnetSnapshot& snap, mad::McMemberRecord& r, std::uint64_t& mask);
    void request_push();
    // The partitions' groups made to match `partitions` (see the header).
    void sync_partition_groups(const partition::Partitions& partitions);
    // The groups' notices since the last call, to the sink; `snap` gives
    // the issuer (the SM's LID and port GID).
    void report_group_notices(const SubnetSnapshot& snap);
    boost::asio::awaitable<void> push_trees();

    EventQueue& events_;
    std::function<void(const mad::Notice&)> notices_;
    mad::Transport& transport_;
    // The groups the partitions made, by MGID, with what made them.
    std::map<mad::Gid128, partition::PartitionGroup> partition_groups_;
    McastSettings settings_;
    mcast::GroupTable groups_;
    MftProgrammer mfts_;
    SnapshotPtr snapshot_;
    std::uint64_t facts_generation_ = 0;
    std::unordered_map<Guid, mcast::PortFacts> facts_;
    bool dirty_ = false;
    bool requested_ = false; // a McastTablesEvent not yet answered by push()
    bool in_push_ = false;
    McastStats stats_;
};

// The masks of every group's tree over `snap`'s fabric (pure); counts the
// members no tree reaches in `unreachable`.
SwitchMasks multicast_masks(const mcast::GroupTable& groups, const SubnetSnapshot& snap,
                            std::uint64_t* unreachable = nullptr);

} // namespace ibsm::daemon
