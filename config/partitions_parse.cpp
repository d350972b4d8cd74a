// Why: a partition that silently loses a member cuts a host off its
// storage, so every way the list can be wrong is refused with the line:
// a P_Key outside the partition numbers (or the built-in default
// partition), a name or P_Key given twice, a port listed twice (in one
// partition or as both full and limited), a partition without members.
#include "config/partitions_parse.h"

#include <array>
#include <map>
#include <string_view>

namespace ibsm::config::detail {

namespace {

constexpr std::array<std::string_view, 5> item_keys{"name", "pkey", "ipoib", "full", "limited"};

void read_members(const Reader& r, const Entry& e, Membership kind, PartitionConfig& p,
                  std::map<Guid, int>& seen)
{
    if (!e.value.IsSequence())
        r.fail(e.line, e.key, "expected a list of port GUIDs, got " + describe_node(e.value));
    for (const auto& item : e.value) {
        const int line = Reader::line_of(item, e.line);
        const Guid g(r.id64(item, line, e.key, "a port GUID"));
        if (g.is_zero()) r.fail(line, e.key, "GUID 0 is not a port GUID");
        auto [it, fresh] = seen.try_emplace(g, line);
        if (!fresh)
            r.fail(line, e.key,
                   "port " + g.str() + " is listed twice in partition '" + p.name + "' (first on line " +
                       std::to_string(it->second) + ")");
        p.members.push_back(PartitionMember{g, kind});
    }
}

} // namespace

std::vector<PartitionConfig> read_partitions(const Reader& r, const Entry& at)
{
    std::vector<PartitionConfig> out;
    if (!at.value.IsDefined() || at.value.IsNull()) return out;
    if (!at.value.IsSequence())
        r.fail(at.line, at.key, "expected a list of partitions (name, pkey, full, limited), got " +
                                    describe_node(at.value));
    std::map<std::string, int> names;
    std::map<std::uint16_t, int> pkeys;
    std::size_t index = 0;
    for (const auto& item : at.value) {
        const std::string path = at.key + "[" + std::to_string(index++) + "]";
        const int line = Reader::line_of(item, at.line);
        if (!item.IsMap())
            r.fail(line, path, "expected a mapping with name, pkey, full and/or limited, got " + describe_node(item));
        const Section s = r.section(item, path, line, item_keys);
        PartitionConfig p;

        const Entry* name = s.find("name");
        if (!name) r.fail(line, path, "a partition needs a name");
        p.name = r.text(*name, "a partition name");
        if (auto [it, fresh] = names.try_emplace(p.name, name->line); !fresh)
            r.fail(name->line, name->key,
                   "partition '" + p.name + "' is defined twice (first on line " + std::to_string(it->second) + ")");

        const Entry* pkey = s.find("pkey");
        if (!pkey) r.fail(line, path, "partition '" + p.name + "' needs a pkey");
        const auto v = r.integer(*pkey, Range{1, 0xffff});
        if (v & 0x8000)
            r.fail(pkey->line, pkey->key,
                   "give the partition number without the membership bit (0x" +
                       [&] {
                           char b[8];
                           std::snprintf(b, sizeof b, "%04x", static_cast<unsigned>(v & 0x7fff));
                           return std::string(b);
                       }() +
                       "); membership is set per port with full: and limited:");
        if (v == 0x7fff)
            r.fail(pkey->line, pkey->key,
                   "0x7fff is the default partition, which every port holds as a full member; choose 0x0001..0x7ffe");
        p.pkey = static_cast<std::uint16_t>(v);
        if (auto [it, fresh] = pkeys.try_emplace(p.pkey, pkey->line); !fresh)
            r.fail(pkey->line, pkey->key,
                   "P_Key " + hex16(p.pkey) + " is already used by another partition (line " +
                       std::to_string(it->second) + ")");

        if (auto* e = s.find("ipoib")) p.ipoib = r.boolean(*e);
        std::map<Guid, int> seen;
        if (auto* e = s.find("full")) read_members(r, *e, Membership::full, p, seen);
        if (auto* e = s.find("limited")) read_members(r, *e, Membership::limited, p, seen);
        if (p.members.empty()) r.fail(line, path, "partition '" + p.name + "' has no members (give full: or limited:)");
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace ibsm::config::detail
