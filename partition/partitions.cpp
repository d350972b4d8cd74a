#include "partition/partitions.h"

#include <algorithm>

namespace ibsm::partition {

Partitions::Partitions(std::vector<Definition> defs, Guid sm_port) : sm_port_(sm_port)
{
    defs_.push_back(Definition{"Default", default_partition, true, {}});
    for (auto& d : defs) defs_.push_back(std::move(d));
    for (std::size_t i = 1; i < defs_.size(); ++i)
        for (const auto& [guid, full] : defs_[i].members) listed_[guid].emplace_back(i, full);
}

std::vector<std::uint16_t> Partitions::keys_of(Guid port) const
{
    std::vector<std::uint16_t> keys{static_cast<std::uint16_t>(default_partition | mad::pkey_full_bit)};
    if (!sm_port_.is_zero() && port == sm_port_) {
        for (std::size_t i = 1; i < defs_.size(); ++i)
            keys.push_back(static_cast<std::uint16_t>(defs_[i].number | mad::pkey_full_bit));
        return keys;
    }
    auto it = listed_.find(port);
    if (it == listed_.end()) return keys;
    auto listed = it->second;
    std::sort(listed.begin(), listed.end());
    for (const auto& [index, full] : listed)
        keys.push_back(static_cast<std::uint16_t>(defs_[index].number | (full ? mad::pkey_full_bit : 0)));
    return keys;
}

std::optional<std::uint16_t> Partitions::path_pkey(Guid a, Guid b, std::optional<std::uint16_t> asked) const
{
    const auto ka = keys_of(a);
    const auto kb = keys_of(b);
    for (auto x : ka) {
        if (asked && mad::pkey_base(x) != mad::pkey_base(*asked)) continue;
        for (auto y : kb) {
            if (mad::pkey_base(x) != mad::pkey_base(y)) continue;
            if (!mad::pkey_full(x) && !mad::pkey_full(y)) continue;
            // As `a` holds it (OpenSM answers with the source's entry).
            return x;
        }
    }
    return std::nullopt;
}

std::vector<mad::PKeyTable> table_blocks(std::span<const std::uint16_t> keys, std::size_t capacity,
                                         std::size_t* dropped)
{
    const std::size_t cap = capacity ? capacity : mad::pkey_block_size;
    const std::size_t fit = std::min(keys.size(), cap);
    if (dropped) *dropped = keys.size() - fit;
    const std::size_t blocks = std::max<std::size_t>(1, (fit + mad::pkey_block_size - 1) / mad::pkey_block_size);
    std::vector<mad::PKeyTable> out(blocks);
    for (std::size_t i = 0; i < fit; ++i) out[i / mad::pkey_block_size].keys[i % mad::pkey_block_size] = keys[i];
    return out;
}

} // namespace ibsm::partition
