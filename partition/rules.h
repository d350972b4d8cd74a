// Partition rules as OpenSM's partitions.conf states them (man opensm,
// "PARTITION CONFIGURATION"; osm_prtn_config.c and osm_prtn.c for the
// semantics), and as ibsmd.yaml's `partitions:` states them too: both are
// read into these values, so both say the same things.
//
// Why: a site's partitions.conf must mean here what it meant under
// OpenSM. The file is a list of statements; several statements may name
// one P_Key (they merge), a port may be named by several (the last one
// that names it decides), and keywords (ALL, ALL_CAS, SELF...) only mean
// something once the fabric is known. So the rules are kept as written
// and resolved against each sweep's fabric (partitions.h).
//
// Data structures: one Rule per statement in file order, with its
// P_Key (0 until assign_pkeys gives the one OpenSM would generate), its
// IPoIB broadcast group's flags and its `mgid=` groups, and its member
// specifiers each with the membership it gives (defmember already applied).
#pragma once

#include "mad/gid.h"
#include "mad/types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::partition {

inline constexpr std::uint16_t default_partition = 0x7fff;

// `both`: full and limited; without allow_both_pkeys OpenSM makes it full.
enum class Membership : std::uint8_t { limited, full, both };
std::string_view to_string(Membership m);

// Whom a member specifier names.
enum class Who : std::uint8_t { port, all, all_cas, all_switches, all_routers, self };
std::string_view to_string(Who w); // "ALL", "ALL_CAS", ... ("" for port)

struct MemberRule {
    Who who = Who::port;
    Guid guid; // Who::port
    Membership membership = Membership::limited;
    bool operator==(const MemberRule&) const = default;
};

// A multicast group's parameters (the mgroup_flags). Defaults are
// OpenSM's: MTU 4 (2048), rate 3 (10 Gb/s), SL 0, scope 2 (link-local)
// when no scope is given, Q_Key 0 (0x0B1B for IP groups).
struct GroupFlags {
    std::uint8_t mtu = 4;
    std::uint8_t rate = 3;
    std::uint8_t sl = 0;
    std::uint16_t scope_mask = 0; // bit n: scope n; 0: link-local only
    std::uint32_t qkey = 0;
    std::uint8_t tclass = 0;
    std::uint32_t flow_label = 0;
    bool operator==(const GroupFlags&) const = default;
};

// An `mgid=` line: a group created with the partition.
struct GroupRule {
    mad::Gid128 mgid;
    GroupFlags flags;
    bool operator==(const GroupRule&) const = default;
};

struct Rule {
    std::string name;       // "" when the statement gives none
    std::uint16_t pkey = 0; // low 15 bits; 0: generated (assign_pkeys)
    bool ipoib = false;     // create the IPoIB broadcast group with `flags`
    GroupFlags flags;       // the broadcast group's, inherited by `groups`
    bool indx0 = false;     // this P_Key at index 0 of its members' tables
    std::vector<MemberRule> members;
    std::vector<GroupRule> groups;
    int line = 0;           // where it was written (0: implicit)
    // Equal in meaning: where a rule was written does not count, so a
    // comment added to the file changes nothing.
    bool operator==(const Rule& o) const
    {
        return name == o.name && pkey == o.pkey && ipoib == o.ipoib && flags == o.flags && indx0 == o.indx0 &&
               members == o.members && groups == o.groups;
    }
};

// Gives every rule without a P_Key the one OpenSM gives it: the P_Key of an
// earlier rule of the same name ("Default" is 0x7fff), else the next
// number from 1 up that no earlier rule uses (osm_prtn.c, generate_pkey).
void assign_pkeys(std::vector<Rule>& rules);

// The rules OpenSM runs on: `configured` (file or YAML, pkeys assigned)
// after the default partition's implicit ones. `have_config`: a partitions
// file or a non-empty `partitions:` list exists; then every end port is a
// limited member of 0x7fff and the SM's port a full one
// (`Default=0x7fff : ALL=limited, SELF=full`); otherwise
// `Default=0x7fff, ipoib : ALL=full` (with its broadcast group).
std::vector<Rule> effective_rules(std::vector<Rule> configured, bool have_config);

// The rule as one partitions.conf statement (`Name=0x0001,ipoib,mtu=5 :
// ALL_CAS=limited, 0x...=full ;`), for logs, reload texts and imports;
// parse_partitions_conf reads it back to the same rule (but `line`).
std::string to_conf_text(const Rule& r);

// The P_Key an IP multicast group (signature 0x401b/0x601b) of partition
// `pkey` carries in MGID bytes 4..5, or the MGID as given for others.
bool is_ip_mgid(const mad::Gid128& mgid);
mad::Gid128 with_mgid_pkey(const mad::Gid128& mgid, std::uint16_t pkey);
// The MGID's scope nibble replaced.
mad::Gid128 with_mgid_scope(const mad::Gid128& mgid, std::uint8_t scope);
// ff12:401b:<pkey|0x8000>::ffff:ffff.
mad::Gid128 ipoib_broadcast_mgid(std::uint16_t pkey);

} // namespace ibsm::partition
