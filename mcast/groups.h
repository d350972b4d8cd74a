// Multicast groups as the SA keeps them: create, join, leave and query by
// MCMemberRecord (IBA 15.2.5.17 and the o15-0.1.x / o15-0.2.x rules of
// 15.2.5.17.x), pure and single-threaded; the SA agent calls it on the loop.
//
// Why: IPoIB cannot come up without its broadcast group, and every rule a
// join can break (missing components on create, a port outside the group's
// partition, an MTU the port cannot carry, a proxy join by a stranger) must
// come back as the SA status the spec names, never a crash or a silent
// success. Keeping the rules apart from the MADs makes each one a unit test.
//
// Data structures: groups by MGID (std::map, so GetTable answers come in a
// stable order), each with the group's parameters as one McMemberRecord
// (Q_Key, MLID, MTU, TClass, P_Key, rate, packet life, SL, FlowLabel,
// HopLimit, scope) and its members by port GUID (port GID, JoinState bits,
// ProxyJoin). MLIDs are handed out lowest free first from 0xC000 up to the
// limit the switches' MulticastFDBCap allows; `by_mlid_` finds a group by
// its MLID. `version_` counts membership changes, so the daemon knows when
// forwarding tables must be recomputed.
//
// Rules (the spec's, in the order OpenSM also checks them):
// - Set (join/create) and Delete (leave) need MGID, PortGID and JoinState
//   in the component mask, else ERR_REQ_INSUFFICIENT_COMPONENTS.
// - The PortGID's prefix must be the subnet's (or the default fe80::),
//   else ERR_REQ_INVALID_GID; the port must exist; a requester joining
//   another port (proxy) must share a partition with it.
// - Create (no group with that MGID): JoinState must have FullMember or
//   SendOnlyFullMember (o15-0.1.9); the mask must also hold Q_Key, TClass,
//   P_Key, FlowLabel and SL (o15-0.1.8) — else ERR_REQ_INSUFFICIENT_COMPONENTS;
//   MGID 0 asks the SA for one (ff1<scope>:a01b:<prefix>:<n>); a given MGID
//   must be a valid multicast GID (o15-0.1.5); MTU and rate must be
//   realisable by the creating port; no free MLID gives ERR_NO_RESOURCES.
// - Join of an existing group: every component in the mask must match the
//   group (selectors for MTU and rate), the port must carry the group's MTU
//   and rate and hold its P_Key, JoinState must not be 0. A member joining
//   again adds JoinState bits; changing another port's membership needs
//   its ProxyJoin (o15-0.2.1).
// - Leave: the member must exist and the JoinState must be a non-empty
//   subset of its own (o15-0.1.14). When the last full member leaves, the
//   group goes (its other members with it), except the permanent groups
//   made at start-up (the IPoIB broadcast group), which stay, empty.
// - Query: groups matching MGID/MLID and every other component given,
//   visible only to requesters in the group's partition. A trusted request
//   (valid non-zero SM_Key) gets one record per member; others get one per
//   group with PortGID, JoinState and ProxyJoin zeroed (15.2.5.17 note).
// - Notices (IBA 14.2.5.1, traps 66 and 67, as OpenSM's osm_multicast.c):
//   a group that gains its first full member was created (66); one that
//   loses its last full member, or is deleted whatever its members, was
//   deleted (67). They are kept in order for take_notices().
#pragma once

#include "mad/gid.h"
#include "mad/mc_member_record.h"
#include "mad/types.h"
#include "mcast/sa_status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::mcast {

// What the rules need to know about an end port (from the last snapshot).
struct PortFacts {
    Guid guid;
    std::uint8_t mtu = 0;  // IBA MTU code the port's link carries (NeighborMTU)
    std::uint8_t rate = 0; // IBA rate code of its link
    std::vector<std::uint16_t> pkeys; // its P_Key table (bit 15: full member)

    // Holds `pkey`'s partition, as a full or limited member.
    bool has_partition(std::uint16_t pkey) const;
    // Shares a partition with `other` where at least one of the two is a
    // full member (two limited members cannot talk, IBA 10.9.3).
    bool shares_partition(const PortFacts& other) const;
};

// Port GUID -> facts, or null for a GUID the subnet does not have.
using PortLookup = std::function<const PortFacts*(Guid)>;

struct Member {
    mad::Gid128 port_gid;
    std::uint8_t join_state = 0;
    bool proxy_join = false;
    bool receives() const { return (join_state & (mad::join_state::full_member | mad::join_state::non_member)) != 0; }
};

struct Group {
    mad::McMemberRecord params; // MGID, Q_Key, MLID, MTU, ... (PortGID/JoinState unused)
    std::map<Guid, Member> members;
    bool permanent = false;
    std::size_t full_members() const;
};

struct GroupSettings {
    std::uint64_t subnet_prefix = 0xfe80000000000000ULL;
    // Highest MLID the switches can hold: 0xC000 + min(MulticastFDBCap) - 1.
    std::uint16_t mlid_top = 0xC3FF;
    // PacketLifeTime of groups created without one (6 bits; OpenSM gives
    // its subnet's packet life, 18 by default).
    std::uint8_t packet_life_time = 18;
};

struct JoinOutcome {
    SaStatus status = SaStatus::ok;
    mad::McMemberRecord record; // the answer (status ok)
    bool created = false;       // a new group
    bool members_changed = false; // forwarding must be recomputed for record.mlid
    std::string why;            // why not ok, for the log
};

// The IPoIB broadcast group of partition `pkey` (IPoIB RFC 4391 §4):
// MGID ff1<scope>:401b:<pkey>::ffff:ffff, Q_Key 0x0B1B, and OpenSM's
// defaults for what the RFC leaves to the SM (MTU 2048, 10 Gb/s, SL 0,
// the subnet's packet life time).
mad::McMemberRecord ipoib_broadcast_params(std::uint16_t pkey, std::uint8_t scope = 2,
                                           std::uint8_t packet_life_time = 18);

class GroupTable {
public:
    explicit GroupTable(GroupSettings settings) : settings_(settings) {}

    // A group that exists without members and survives its last leave (the
    // broadcast group of a partition). Takes the next free MLID unless one
    // is given; fails with no_resources when none is left.
    JoinOutcome create_permanent(mad::McMemberRecord params);

    // SubnAdmSet(MCMemberRecord): create and/or join. `requester`: the port
    // the request came from.
    JoinOutcome join(const mad::McMemberRecord& req, std::uint64_t mask, Guid requester, const PortLookup& ports);
    // SubnAdmDelete(MCMemberRecord): leave (some JoinState bits).
    JoinOutcome leave(const mad::McMemberRecord& req, std::uint64_t mask, Guid requester, const PortLookup& ports);
    // SubnAdmGet/GetTable(MCMemberRecord). Status no_records / ok.
    std::vector<mad::McMemberRecord> query(const mad::McMemberRecord& req, std::uint64_t mask, Guid requester,
                                           bool trusted, const PortLookup& ports) const;

    // Ports gone from the subnet lose their memberships (a group whose last
    // full member went is removed as on leave). Returns the MLIDs whose
    // members changed.
    std::vector<Lid> drop_ports(const std::function<bool(Guid)>& gone);

    // Deletes a group with its members, permanent or not (a partition that
    // was removed takes its groups with it). Returns its MLID, if it existed.
    std::optional<Lid> remove(const mad::Gid128& mgid);

    // The switches' smallest MulticastFDBCap, once known: later groups get
    // MLIDs up to 0xC000 + cap - 1 only.
    void set_mlid_top(std::uint16_t top) { settings_.mlid_top = top; }

    const std::map<mad::Gid128, Group>& groups() const { return groups_; }
    const Group* find(const mad::Gid128& mgid) const;
    const Group* find(Lid mlid) const;
    std::uint64_t version() const { return version_; }

    struct GroupNotice {
        bool created = false; // trap 66; else 67
        mad::Gid128 mgid;
        bool operator==(const GroupNotice&) const = default;
    };
    // The groups created and deleted since the last call, in order (see
    // the header comment); the SA reports them to InformInfo subscribers.
    std::vector<GroupNotice> take_notices() { return std::exchange(notices_, {}); }

private:
    std::optional<Lid> free_mlid(Lid wanted) const;
    std::optional<mad::Gid128> new_mgid(std::uint8_t scope);
    void erase_group(std::map<mad::Gid128, Group>::iterator it);

    GroupSettings settings_;
    std::map<mad::Gid128, Group> groups_;
    std::map<std::uint16_t, mad::Gid128> by_mlid_;
    std::uint32_t next_mgid_ = 1;
    std::uint64_t version_ = 0;
    std::vector<GroupNotice> notices_;
};

} // namespace ibsm::mcast
