// LID blocks for path routing (see header): the LMC arithmetic, the
// fixed-LMC check, and colour-first allocation through assign_base_lids with
// a per-port LMC.
#include "lidassign/path_lids.h"

#include <algorithm>
#include <map>

namespace ibsm::lidassign {

const char* to_string(LidOrder o)
{
    switch (o) {
    case LidOrder::fixed_lmc: return "fixed-lmc";
    case LidOrder::colour_first: return "colour-first";
    }
    return "?";
}

std::optional<LidOrder> lid_order_from(std::string_view name)
{
    if (name == "fixed-lmc") return LidOrder::fixed_lmc;
    if (name == "colour-first" || name == "color-first") return LidOrder::colour_first;
    return std::nullopt;
}

std::optional<std::uint8_t> lmc_for(std::uint32_t configs)
{
    if (configs > max_configs_per_port) return std::nullopt;
    std::uint8_t lmc = 0;
    while ((1u << lmc) < configs) ++lmc;
    return lmc;
}

std::string describe_port(const topology::Fabric& fabric, topology::PortRef p)
{
    const auto& node = fabric.node(p.node);
    std::string s = fabric.port(p).guid.str();
    if (!node.is_switch()) s += " port " + std::to_string(p.port.value());
    if (!node.description.empty()) s += " ('" + node.description + "')";
    return s;
}

std::pair<std::uint32_t, std::uint32_t> count_lids(const topology::Fabric& fabric, const LidMap& lids)
{
    std::uint32_t ca = 0, all = 0;
    for (const auto& [ref, pl] : lids.entries()) {
        all += pl.count();
        if (!fabric.node(ref.node).is_switch()) ca += pl.count();
    }
    return {ca, all};
}

namespace {

// "h1 port 1 needs 5 configurations" for up to three destinations, then "and N more".
template <typename Pred>
std::string name_some(const topology::Fabric& fabric, std::span<const DestinationNeed> needs, Pred bad,
                      const std::string& what)
{
    std::string out;
    std::size_t n = 0;
    for (const auto& need : needs) {
        if (!bad(need)) continue;
        if (n < 3)
            out += (n ? "; " : "") + describe_port(fabric, need.dst) + " needs " + std::to_string(need.configs) +
                   " configurations" + what;
        ++n;
    }
    if (n > 3) out += "; and " + std::to_string(n - 3) + " more";
    return out;
}

} // namespace

std::optional<PathLidRefusal> check_fixed_lmc(const topology::Fabric& fabric, const LidMap& lids,
                                              std::span<const DestinationNeed> needs)
{
    auto too_many = [&](const DestinationNeed& n) {
        auto l = lids.lids_of(n.dst);
        return !l || n.configs > l->count();
    };
    if (std::none_of(needs.begin(), needs.end(), too_many)) return std::nullopt;
    std::string detail;
    for (const auto& n : needs)
        if (too_many(n)) {
            auto l = lids.lids_of(n.dst);
            detail = l ? " but LMC " + std::to_string(l->lmc) + " gives " + std::to_string(l->count()) + " LIDs"
                       : " but has no LID";
            break;
        }
    return PathLidRefusal{"fixed LMC too small: " + name_some(fabric, needs, too_many, detail) +
                          " (raise routing.lmc or use routing.lid_order: colour-first)"};
}

PathLidResult assign_path_lids(const topology::Fabric& fabric, const GuidLidMap& previous,
                               std::span<const DestinationNeed> needs, const BaseLidOptions& options)
{
    auto no_lmc = [](const DestinationNeed& n) { return !lmc_for(n.configs); };
    if (std::any_of(needs.begin(), needs.end(), no_lmc))
        return PathLidRefusal{"more than " + std::to_string(max_configs_per_port) +
                              " LIDs needed for one port (LMC 7 is the most): " +
                              name_some(fabric, needs, no_lmc, "")};
    std::map<topology::PortRef, std::uint8_t> lmc_of_port;
    std::map<topology::PortRef, std::uint32_t> configs;
    for (const auto& n : needs) {
        lmc_of_port[n.dst] = *lmc_for(n.configs);
        configs[n.dst] = n.configs;
    }
    BaseLidResult base;
    try {
        base = assign_base_lids(fabric, previous, options, lmc_of_port);
    } catch (const LidSpaceExhausted& e) {
        std::uint64_t wanted = fabric.switch_count();
        for (const auto& n : needs) wanted += 1u << *lmc_for(n.configs);
        return PathLidRefusal{std::string(e.what()) + "; the path routing needs at least " + std::to_string(wanted) +
                              " LIDs"};
    } catch (const std::invalid_argument& e) {
        return PathLidRefusal{e.what()};
    }
    PathLids out;
    out.lids = std::move(base.lids);
    for (auto& note : base.notes) {
        auto it = configs.find(note.port);
        auto now = out.lids.lids_of(note.port);
        if (it != configs.end() && now && now->lmc > 0)
            note.text += "; moved to " + hex16(now->base.value()) + ": " + std::to_string(now->count()) +
                         " LIDs for " + std::to_string(it->second) + " configurations";
        out.notes.push_back(std::move(note));
    }
    std::tie(out.ca_lids, out.total_lids) = count_lids(fabric, out.lids);
    return out;
}

} // namespace ibsm::lidassign
