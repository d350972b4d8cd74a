// Why: a partition that silently loses a member cuts a host off its
// storage, so every way an entry can be wrong is refused with the line:
// a P_Key with the membership bit or out of range, a member that is
// neither a port GUID nor a keyword, a port or keyword listed twice in one
// entry, a group whose MGID is not multicast, an IP group whose P_Key,
// rate or MTU differs from its partition's broadcast group (OpenSM only
// warns and leaves the group out; in YAML there is no old file to honour).
//
// Entries mean what partitions.conf statements mean (partition/rules.h),
// with one addition: within an entry, broader specifiers apply first (ALL,
// then ALL_CAS/ALL_SWITCHES/ALL_ROUTERS, then SELF and GUIDs), so the key
// order of a YAML mapping never matters.
#include "config/partitions_parse.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <map>
#include <string_view>

namespace ibsm::config::detail {

namespace {

using partition::GroupFlags;
using partition::GroupRule;
using partition::MemberRule;
using partition::Membership;
using partition::Who;

constexpr std::array<std::string_view, 17> item_keys{"name",  "pkey",  "ipoib",  "indx0", "defmember", "members",
                                                         "full",  "limited", "both", "groups", "mtu",       "rate",
                                                         "sl",    "scope", "qkey",   "tclass", "flow_label"};
constexpr std::array<std::string_view, 8> group_keys{"mgid", "mtu", "rate", "sl", "scope", "qkey", "tclass", "flow_label"};

int specificity(Who w)
{
    switch (w) {
    case Who::all: return 0;
    case Who::all_cas:
    case Who::all_switches:
    case Who::all_routers: return 1;
    case Who::self:
    case Who::port: return 2;
    }
    return 2;
}

Membership membership(const Reader& r, const Entry& e)
{
    const auto v = r.text(e, "full, limited or both");
    if (v == "full") return Membership::full;
    if (v == "limited") return Membership::limited;
    if (v == "both") return Membership::both;
    r.fail(e.line, e.key, "expected full, limited or both, got '" + v + "'");
}

void read_members(const Reader& r, const Entry& e, Membership kind, partition::Rule& p,
                  std::map<std::string, int>& seen)
{
    if (!e.value.IsSequence())
        r.fail(e.line, e.key,
               "expected a list of port GUIDs or ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF, got " +
                   describe_node(e.value));
    for (const auto& item : e.value) {
        const int line = Reader::line_of(item, e.line);
        MemberRule m;
        m.membership = kind;
        const std::string text = item.IsScalar() ? item.Scalar() : std::string();
        static constexpr std::array<Who, 5> keywords{Who::all, Who::all_cas, Who::all_switches, Who::all_routers,
                                                     Who::self};
        auto kw = std::find_if(keywords.begin(), keywords.end(), [&](Who w) { return partition::to_string(w) == text; });
        std::string id;
        if (kw != keywords.end()) {
            m.who = *kw;
            id = text;
        } else {
            m.guid = Guid(r.id64(item, line, e.key, "a port GUID or ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF"));
            if (m.guid.is_zero()) r.fail(line, e.key, "GUID 0 is not a port GUID");
            id = "port " + m.guid.str();
        }
        auto [it, fresh] = seen.try_emplace(id, line);
        if (!fresh)
            r.fail(line, e.key,
                   id + " is listed twice in partition '" + p.name + "' (first on line " + std::to_string(it->second) +
                       ")");
        p.members.push_back(m);
    }
}

void read_flags(const Reader& r, const Section& s, GroupFlags& f)
{
    if (auto* e = s.find("mtu")) f.mtu = static_cast<std::uint8_t>(r.integer(*e, Range{1, 5}));
    if (auto* e = s.find("rate")) f.rate = static_cast<std::uint8_t>(r.integer(*e, Range{2, 22}));
    if (auto* e = s.find("sl")) f.sl = static_cast<std::uint8_t>(r.integer(*e, Range{0, 15}));
    if (auto* e = s.find("scope")) {
        auto one = [&](const YAML::Node& n, int line) {
            Entry x{e->key, e->key_line, n, line};
            f.scope_mask = static_cast<std::uint16_t>(f.scope_mask | (1u << r.integer(x, Range{1, 15})));
        };
        if (e->value.IsSequence())
            for (const auto& n : e->value) one(n, Reader::line_of(n, e->line));
        else
            one(e->value, e->line);
    }
    if (auto* e = s.find("qkey")) f.qkey = static_cast<std::uint32_t>(r.integer(*e, Range{0, 0xffffffff}));
    if (auto* e = s.find("tclass")) f.tclass = static_cast<std::uint8_t>(r.integer(*e, Range{0, 255}));
    if (auto* e = s.find("flow_label")) f.flow_label = static_cast<std::uint32_t>(r.integer(*e, Range{0, 0xfffff}));
}

GroupRule read_group(const Reader& r, const YAML::Node& item, const std::string& path, int line,
                     const partition::Rule& p)
{
    if (!item.IsMap()) r.fail(line, path, "expected a mapping with mgid and group flags, got " + describe_node(item));
    const Section s = r.section(item, path, line, group_keys);
    const Entry* mgid = s.find("mgid");
    if (!mgid) r.fail(line, path, "a group needs an mgid");
    const auto text = r.text(*mgid, "a multicast GID");
    std::array<std::uint8_t, 16> raw{};
    if (inet_pton(AF_INET6, text.c_str(), raw.data()) != 1 || raw[0] != 0xff)
        r.fail(mgid->line, mgid->key, "'" + text + "' is not a multicast GID (ff..:...)");
    GroupRule g;
    for (std::size_t i = 0; i < 8; ++i) g.mgid.prefix = (g.mgid.prefix << 8) | raw[i];
    for (std::size_t i = 8; i < 16; ++i) g.mgid.interface_id = (g.mgid.interface_id << 8) | raw[i];
    g.flags = p.flags;
    g.flags.tclass = 0;
    read_flags(r, s, g.flags);
    if (partition::is_ip_mgid(g.mgid)) {
        const auto mpkey = static_cast<std::uint16_t>(g.mgid.prefix >> 16);
        if (mpkey != 0 && p.pkey != 0 && mpkey != (p.pkey | 0x8000))
            r.fail(mgid->line, mgid->key,
                   "IP group " + text + " carries P_Key " + hex16(mpkey) + ", not its partition's " +
                       hex16(static_cast<std::uint16_t>(p.pkey | 0x8000)) + " (write 0 there to have it filled in)");
        if (g.flags.rate != p.flags.rate || g.flags.mtu != p.flags.mtu)
            r.fail(line, path,
                   "IP group " + text + " must have its partition's broadcast group rate " +
                       std::to_string(p.flags.rate) + " and mtu " + std::to_string(p.flags.mtu) + " (has rate " +
                       std::to_string(g.flags.rate) + ", mtu " + std::to_string(g.flags.mtu) + ")");
        if (g.flags.qkey == 0) g.flags.qkey = 0x0b1b;
    }
    return g;
}

} // namespace

std::vector<PartitionConfig> read_partitions(const Reader& r, const Entry& at)
{
    std::vector<PartitionConfig> out;
    if (!at.value.IsDefined() || at.value.IsNull()) return out;
    if (!at.value.IsSequence())
        r.fail(at.line, at.key, "expected a list of partitions (name, pkey, full, limited, ...), got " +
                                    describe_node(at.value));
    std::size_t index = 0;
    for (const auto& item : at.value) {
        const std::string path = at.key + "[" + std::to_string(index++) + "]";
        const int line = Reader::line_of(item, at.line);
        if (!item.IsMap())
            r.fail(line, path, "expected a mapping with name, pkey, full and/or limited, got " + describe_node(item));
        const Section s = r.section(item, path, line, item_keys);
        PartitionConfig p;
        p.line = line;
        p.ipoib = true; // YAML's default, as ibsmd always had it

        if (const Entry* name = s.find("name")) p.name = r.text(*name, "a partition name");
        if (const Entry* pkey = s.find("pkey")) {
            const auto v = r.integer(*pkey, Range{1, 0xffff});
            if (v & 0x8000)
                r.fail(pkey->line, pkey->key,
                       "give the partition number without the membership bit (" +
                           hex16(static_cast<std::uint16_t>(v & 0x7fff)) +
                           "); membership is set per port with full:, limited: and both:");
            p.pkey = static_cast<std::uint16_t>(v);
        }
        if (auto* e = s.find("ipoib")) p.ipoib = r.boolean(*e);
        if (auto* e = s.find("indx0")) p.indx0 = r.boolean(*e);
        read_flags(r, s, p.flags);
        Membership def = Membership::limited;
        if (auto* e = s.find("defmember")) def = membership(r, *e);
        std::map<std::string, int> seen;
        if (auto* e = s.find("members")) read_members(r, *e, def, p, seen);
        if (auto* e = s.find("full")) read_members(r, *e, Membership::full, p, seen);
        if (auto* e = s.find("limited")) read_members(r, *e, Membership::limited, p, seen);
        if (auto* e = s.find("both")) read_members(r, *e, Membership::both, p, seen);
        std::stable_sort(p.members.begin(), p.members.end(),
                         [](const MemberRule& a, const MemberRule& b) { return specificity(a.who) < specificity(b.who); });
        out.push_back(std::move(p));
        if (auto* e = s.find("groups")) {
            // A generated P_Key is needed to check IP groups' P_Keys: give them now.
            partition::assign_pkeys(out);
            if (!e->value.IsSequence()) r.fail(e->line, e->key, "expected a list of groups, got " + describe_node(e->value));
            std::size_t gi = 0;
            for (const auto& g : e->value)
                out.back().groups.push_back(read_group(r, g, e->key + "[" + std::to_string(gi++) + "]",
                                                       Reader::line_of(g, e->line), out.back()));
        }
    }
    partition::assign_pkeys(out);
    return out;
}

} // namespace ibsm::config::detail
