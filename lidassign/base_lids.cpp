// Base LID assignment.
//
// Why: every addressable port needs a stable base LID; keeping LIDs stable
// across sweeps and restarts (persisted map, LIDs already programmed) avoids
// disturbing running jobs, and LMC blocks must be 2^LMC aligned.
//
// Data structures: `owner`, one slot per LID up to the limit: 0 free, >0 the
// 1-based index of the addressable port holding it, -1 reserved for a GUID of
// the previous map that is absent now. One scan cursor per block size for
// fresh allocation.
//
// Algorithm: three passes in fixed port order (previous map, LID on the port,
// fresh lowest aligned free block). Because LIDs are only ever taken, the
// lowest free block of a given size never moves down, so each cursor only
// advances: fresh allocation is linear in the LID space overall. Reserved LIDs
// are reclaimed only when no free block is left.
#include "lidassign/base_lids.h"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace ibsm::lidassign {

namespace {

using topology::Fabric;
using topology::PortRef;

std::string port_name(const Fabric& fabric, PortRef p)
{
    const auto& node = fabric.node(p.node);
    std::string s = fabric.port(p).guid.str();
    if (!node.is_switch()) s += " port " + std::to_string(p.port.value());
    if (!node.description.empty()) s += " ('" + node.description + "')";
    return s;
}

class Allocator {
public:
    Allocator(const Fabric& fabric, const std::vector<PortRef>& ports, std::uint16_t max_lid)
        : fabric_(fabric), ports_(ports), owner_(static_cast<std::size_t>(max_lid) + 1, 0), max_(max_lid)
    {
    }

    // Empty when [base, base+2^lmc) can be taken, else why not.
    std::optional<std::string> refuse(std::uint32_t base, std::uint8_t lmc) const
    {
        const std::uint32_t count = 1u << lmc;
        if (base == 0) return "LID 0 is not a unicast LID";
        if (base % count != 0) return "not aligned to 2^LMC = " + std::to_string(count);
        if (base + count - 1 > max_) return "beyond the highest unicast LID " + hex16(max_);
        for (std::uint32_t l = base; l < base + count; ++l) {
            if (owner_[l] > 0)
                return "LID " + hex16(l) + " already belongs to " +
                       port_name(fabric_, ports_[static_cast<std::size_t>(owner_[l] - 1)]);
            if (owner_[l] < 0) return "LID " + hex16(l) + " is reserved";
        }
        return std::nullopt;
    }

    void take(std::size_t port_index, std::uint32_t base, std::uint8_t lmc)
    {
        for (std::uint32_t l = base; l < base + (1u << lmc); ++l) owner_[l] = static_cast<std::int32_t>(port_index + 1);
    }

    // Marks a block reserved where it is still free.
    void reserve(std::uint32_t base, std::uint8_t lmc)
    {
        for (std::uint32_t l = base; l < base + (1u << lmc) && l <= max_; ++l)
            if (owner_[l] == 0) owner_[l] = -1;
    }

    // Lowest free aligned block of 2^lmc LIDs; with `reclaim`, reserved LIDs
    // count as free.
    std::optional<std::uint32_t> find_free(std::uint8_t lmc, bool reclaim)
    {
        const std::uint32_t count = 1u << lmc;
        std::uint32_t& cursor = cursor_[lmc];
        std::uint32_t b = reclaim ? count : std::max(cursor, count);
        for (; b + count - 1 <= max_; b += count) {
            bool ok = true;
            for (std::uint32_t l = b; l < b + count; ++l)
                if (owner_[l] > 0 || (owner_[l] < 0 && !reclaim)) {
                    ok = false;
                    break;
                }
            if (ok) {
                if (!reclaim) cursor = b;
                return b;
            }
        }
        if (!reclaim) cursor = b;
        return std::nullopt;
    }

private:
    const Fabric& fabric_;
    const std::vector<PortRef>& ports_;
    std::vector<std::int32_t> owner_;
    std::uint32_t max_;
    std::uint32_t cursor_[8] = {};
};

bool is_addressable(const Fabric& fabric, PortRef p)
{
    const auto& node = fabric.node(p.node);
    if (node.is_switch()) return p.port.value() == 0;
    return p.port.value() != 0 && fabric.port(p).remote.has_value();
}

} // namespace

std::vector<PortRef> addressable_ports(const Fabric& fabric)
{
    std::vector<PortRef> out;
    for (auto id : fabric.node_ids()) {
        const auto& node = fabric.node(id);
        if (node.is_switch()) {
            out.push_back(PortRef{id, PortNum(0)});
            continue;
        }
        for (std::size_t p = 1; p < node.ports.size(); ++p) {
            PortRef ref{id, PortNum(static_cast<std::uint8_t>(p))};
            if (is_addressable(fabric, ref)) out.push_back(ref);
        }
    }
    return out;
}

std::uint8_t port_lmc(const Fabric& fabric, PortRef port, const BaseLidOptions& options)
{
    const auto& node = fabric.node(port.node);
    if (!node.is_switch()) return options.lmc;
    return options.lmc_esp0 && node.sw && node.sw->enhanced_port0 ? options.lmc : 0;
}

BaseLidResult assign_base_lids(const Fabric& fabric, const GuidLidMap& previous, const BaseLidOptions& options)
{
    return assign_base_lids(fabric, previous, options, {});
}

BaseLidResult assign_base_lids(const Fabric& fabric, const GuidLidMap& previous, const BaseLidOptions& options,
                               const std::map<PortRef, std::uint8_t>& lmc_of_port)
{
    if (options.lmc > 7) throw std::invalid_argument("LMC " + std::to_string(options.lmc) + " out of range 0..7");
    for (const auto& [port, l] : lmc_of_port)
        if (l > 7) throw std::invalid_argument("LMC " + std::to_string(l) + " out of range 0..7");
    const std::uint16_t max_lid = std::min<std::uint16_t>(options.max_lid, Lid::max_unicast);

    const auto ports = addressable_ports(fabric);
    Allocator alloc(fabric, ports, max_lid);
    std::vector<std::optional<std::uint32_t>> base(ports.size());
    std::vector<std::uint8_t> lmc(ports.size());
    for (std::size_t i = 0; i < ports.size(); ++i) {
        auto it = lmc_of_port.find(ports[i]);
        lmc[i] = it != lmc_of_port.end() && !fabric.node(ports[i].node).is_switch() ? it->second
                                                                                    : port_lmc(fabric, ports[i], options);
    }

    BaseLidResult result;
    auto note = [&](std::size_t i, const std::string& what, std::uint32_t lid, const std::string& why) {
        result.notes.push_back({ports[i], port_name(fabric, ports[i]) + ": " + what + " " + hex16(lid) +
                                              " not kept: " + why});
    };

    // 1. The persisted map.
    for (std::size_t i = 0; i < ports.size(); ++i) {
        const Guid guid = fabric.port(ports[i]).guid;
        if (guid.is_zero()) continue;
        auto it = previous.find(guid);
        if (it == previous.end()) continue;
        const std::uint32_t want = it->second.value();
        if (auto why = alloc.refuse(want, lmc[i])) {
            note(i, "previous LID", want, *why);
            continue;
        }
        alloc.take(i, want, lmc[i]);
        base[i] = want;
    }

    // 2. LIDs the ports already carry.
    for (std::size_t i = 0; i < ports.size(); ++i) {
        if (base[i]) continue;
        const std::uint32_t have = fabric.port(ports[i]).lid.value();
        if (have == 0) continue;
        if (auto why = alloc.refuse(have, lmc[i])) {
            note(i, "present LID", have, *why);
            continue;
        }
        alloc.take(i, have, lmc[i]);
        base[i] = have;
    }

    // 3. Hold back what the previous map promised to ports that are away.
    for (const auto& [guid, lid] : previous) {
        auto where = fabric.find_port(guid);
        if (where && is_addressable(fabric, *where)) continue;
        if (lid.valid_unicast() && lid.value() <= max_lid) alloc.reserve(lid.value(), options.lmc);
    }

    // 4. Fresh blocks.
    for (std::size_t i = 0; i < ports.size(); ++i) {
        if (base[i]) continue;
        auto b = alloc.find_free(lmc[i], false);
        if (!b) {
            b = alloc.find_free(lmc[i], true);
            if (b)
                result.notes.push_back({ports[i], port_name(fabric, ports[i]) + ": took " + hex16(*b) +
                                                      ", reserved for a port of the previous map that is absent"});
        }
        if (!b) {
            const std::size_t missing = static_cast<std::size_t>(std::count(base.begin() + static_cast<std::ptrdiff_t>(i),
                                                                            base.end(), std::nullopt));
            throw LidSpaceExhausted("out of unicast LIDs: no free block of " + std::to_string(1u << lmc[i]) +
                                    " LIDs for " + port_name(fabric, ports[i]) + " (" + std::to_string(missing) +
                                    " of " + std::to_string(ports.size()) +
                                    " addressable ports still without LIDs, LMC " + std::to_string(options.lmc) +
                                    ", LIDs 1.." + hex16(max_lid) + ")");
        }
        alloc.take(i, *b, lmc[i]);
        base[i] = *b;
    }

    for (std::size_t i = 0; i < ports.size(); ++i)
        result.lids.assign(ports[i], Lid(static_cast<std::uint16_t>(*base[i])), lmc[i]);
    return result;
}

void apply_lids(const LidMap& lids, topology::Fabric& fabric)
{
    for (const auto& [ref, pl] : lids.entries()) {
        auto& node = fabric.node(ref.node);
        if (node.is_switch()) {
            for (auto& port : node.ports) {
                port.lid = pl.base;
                port.lmc = pl.lmc;
            }
        } else {
            auto& port = node.port(ref.port);
            port.lid = pl.base;
            port.lmc = pl.lmc;
        }
    }
}

LidMap lids_from_ports(const Fabric& fabric)
{
    LidMap lids;
    for (auto ref : addressable_ports(fabric)) {
        const auto& port = fabric.port(ref);
        if (!port.lid) continue;
        try {
            lids.assign(ref, port.lid, port.lmc);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(port_name(fabric, ref) + " LID " + hex16(port.lid.value()) + " lmc " +
                                        std::to_string(port.lmc) + ": " + e.what());
        }
    }
    return lids;
}

} // namespace ibsm::lidassign
