#include "partition/rules.h"

#include <arpa/inet.h>

#include <array>
#include <cstdio>
#include <map>
#include <set>

namespace ibsm::partition {

std::string_view to_string(Membership m)
{
    switch (m) {
    case Membership::limited: return "limited";
    case Membership::full: return "full";
    case Membership::both: return "both";
    }
    return "limited";
}

std::string_view to_string(Who w)
{
    switch (w) {
    case Who::port: return "";
    case Who::all: return "ALL";
    case Who::all_cas: return "ALL_CAS";
    case Who::all_switches: return "ALL_SWITCHES";
    case Who::all_routers: return "ALL_ROUTERS";
    case Who::self: return "SELF";
    }
    return "";
}

void assign_pkeys(std::vector<Rule>& rules)
{
    // As osm_prtn_make_new: a rule without P_Key joins the earlier one of its
    // name, else takes the next free number; the default partition exists
    // before the file is read.
    std::map<std::string, std::uint16_t> by_name{{"Default", default_partition}};
    std::set<std::uint16_t> used{default_partition};
    unsigned counter = 0;
    for (auto& r : rules) {
        r.pkey &= 0x7fff;
        if (r.pkey == 0) {
            if (auto it = by_name.find(r.name); !r.name.empty() && it != by_name.end()) {
                r.pkey = it->second;
            } else {
                while (counter < default_partition - 1 && used.count(static_cast<std::uint16_t>(counter + 1)))
                    ++counter;
                r.pkey = static_cast<std::uint16_t>(++counter);
            }
        }
        // A partition keeps the name of the statement that made it.
        if (used.insert(r.pkey).second && !r.name.empty()) by_name.try_emplace(r.name, r.pkey);
    }
}

std::vector<Rule> effective_rules(std::vector<Rule> configured, bool have_config)
{
    // osm_prtn.c, prtn_make_default: made before the file is read, so the
    // file's own Default statements merge into it.
    Rule d;
    d.name = "Default";
    d.pkey = default_partition;
    if (have_config) {
        d.members = {MemberRule{Who::all, Guid(), Membership::limited}, MemberRule{Who::self, Guid(), Membership::full}};
    } else {
        d.ipoib = true;
        d.members = {MemberRule{Who::all, Guid(), Membership::full}, MemberRule{Who::self, Guid(), Membership::full}};
    }
    std::vector<Rule> out;
    out.reserve(configured.size() + 1);
    out.push_back(std::move(d));
    for (auto& r : configured) out.push_back(std::move(r));
    assign_pkeys(out);
    return out;
}

namespace {

std::string hex(std::uint64_t v, int width)
{
    char b[24];
    std::snprintf(b, sizeof b, "0x%0*llx", width, static_cast<unsigned long long>(v));
    return b;
}

std::string gid_text(const mad::Gid128& g)
{
    std::array<std::uint8_t, 16> raw{};
    for (int i = 0; i < 8; ++i) {
        raw[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(g.prefix >> (56 - 8 * i));
        raw[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(g.interface_id >> (56 - 8 * i));
    }
    char b[INET6_ADDRSTRLEN];
    return inet_ntop(AF_INET6, raw.data(), b, sizeof b) ? std::string(b) : g.str();
}

// The flags that differ from `base` (the defaults, or the partition's).
std::string flag_text(const GroupFlags& f, const GroupFlags& base)
{
    std::string t;
    if (f.mtu != base.mtu) t += ",mtu=" + std::to_string(f.mtu);
    if (f.rate != base.rate) t += ",rate=" + std::to_string(f.rate);
    if (f.sl != base.sl) t += ",sl=" + std::to_string(f.sl);
    for (unsigned s = 1; s < 16; ++s)
        if ((f.scope_mask & (1u << s)) && !(base.scope_mask & (1u << s))) t += ",scope=" + std::to_string(s);
    if (f.qkey != base.qkey) t += ",Q_Key=" + hex(f.qkey, 8);
    if (f.tclass != base.tclass) t += ",TClass=" + std::to_string(f.tclass);
    if (f.flow_label != base.flow_label) t += ",FlowLabel=" + hex(f.flow_label, 5);
    return t;
}

} // namespace

std::string to_conf_text(const Rule& r)
{
    std::string t = r.name + "=" + hex(r.pkey, 4);
    if (r.ipoib) t += ",ipoib";
    t += flag_text(r.flags, GroupFlags{});
    if (r.indx0) t += ",indx0";
    t += " :";
    bool first = true;
    for (const auto& g : r.groups) {
        auto base = r.flags;
        base.tclass = 0;
        if (is_ip_mgid(g.mgid) && base.qkey == 0) base.qkey = 0x0b1b;
        t += std::string(first ? "" : ",") + " mgid=" + gid_text(g.mgid) + flag_text(g.flags, base) + "\n";
        first = true;
    }
    for (const auto& m : r.members) {
        t += std::string(first ? " " : ", ") +
             (m.who == Who::port ? hex(m.guid.value(), 16) : std::string(to_string(m.who))) + "=" +
             std::string(to_string(m.membership));
        first = false;
    }
    return t + " ;";
}

bool is_ip_mgid(const mad::Gid128& mgid)
{
    const auto sig = static_cast<std::uint16_t>(mgid.prefix >> 32);
    return sig == 0x401b || sig == 0x601b;
}

mad::Gid128 with_mgid_pkey(const mad::Gid128& mgid, std::uint16_t pkey)
{
    auto g = mgid;
    g.prefix = (g.prefix & ~(std::uint64_t{0xffff} << 16)) | (std::uint64_t{pkey} << 16);
    return g;
}

mad::Gid128 with_mgid_scope(const mad::Gid128& mgid, std::uint8_t scope)
{
    auto g = mgid;
    g.prefix = (g.prefix & ~(std::uint64_t{0xf} << 48)) | (std::uint64_t{scope & 0xfu} << 48);
    return g;
}

mad::Gid128 ipoib_broadcast_mgid(std::uint16_t pkey)
{
    return mad::Gid128{0xff12401b00000000ull | (std::uint64_t{static_cast<std::uint16_t>(pkey | 0x8000)} << 16),
                       0x00000000ffffffffull};
}

} // namespace ibsm::partition
