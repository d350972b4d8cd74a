// LidMap: the dense LID -> port table plus the port -> LIDs map (see header).
// `by_lid_` grows to the highest LID assigned, so top() is its size - 1.
#include "lidassign/lid_map.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ibsm::lidassign {

namespace {

std::string describe(topology::PortRef p)
{
    return "node " + std::to_string(p.node.value) + " port " + std::to_string(p.port.value());
}

} // namespace

void LidMap::assign(topology::PortRef port, Lid base, std::uint8_t lmc)
{
    if (lmc > 7) throw std::invalid_argument("LMC " + std::to_string(lmc) + " out of range 0..7");
    const std::uint32_t count = 1u << lmc;
    const std::uint32_t first = base.value();
    const std::uint32_t last = first + count - 1;
    if (!base.valid_unicast() || last > Lid::max_unicast)
        throw std::invalid_argument("LIDs " + std::to_string(first) + ".." + std::to_string(last) +
                                    " for " + describe(port) + " leave the unicast range 1..0xBFFF");
    if (first % count != 0)
        throw std::invalid_argument("base LID " + std::to_string(first) + " for " + describe(port) +
                                    " is not aligned to 2^LMC = " + std::to_string(count));
    if (by_port_.contains(port))
        throw std::invalid_argument(describe(port) + " already has LIDs");
    for (std::uint32_t l = first; l <= last && l < by_lid_.size(); ++l)
        if (by_lid_[l])
            throw std::invalid_argument("LID " + std::to_string(l) + " for " + describe(port) +
                                        " is already taken by " + describe(*by_lid_[l]));
    if (by_lid_.size() <= last) by_lid_.resize(last + 1);
    for (std::uint32_t l = first; l <= last; ++l) by_lid_[l] = port;
    by_port_.emplace(port, PortLids{base, lmc});
}

std::optional<PortLids> LidMap::lids_of(topology::PortRef port) const
{
    auto it = by_port_.find(port);
    if (it == by_port_.end()) return std::nullopt;
    return it->second;
}

std::optional<topology::PortRef> LidMap::port_of(Lid lid) const
{
    if (lid.value() >= by_lid_.size()) return std::nullopt;
    return by_lid_[lid.value()];
}

std::vector<std::pair<topology::PortRef, PortLids>> LidMap::entries() const
{
    std::vector<std::pair<topology::PortRef, PortLids>> out(by_port_.begin(), by_port_.end());
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second.base < b.second.base; });
    return out;
}

std::size_t LidMap::lid_count() const
{
    std::size_t n = 0;
    for (const auto& [port, lids] : by_port_) n += lids.count();
    return n;
}

} // namespace ibsm::lidassign
