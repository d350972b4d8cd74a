#include "partition/pkey_indexes.h"

#include "mad/pkey_table.h"

#include <algorithm>
#include <optional>

namespace ibsm::partition {

namespace {

std::size_t whole_blocks(std::size_t entries)
{
    const auto b = mad::pkey_block_size;
    return std::max<std::size_t>(1, (entries + b - 1) / b) * b;
}

} // namespace

void IndexBook::set_allow_both(bool on)
{
    // What was remembered is keyed the other way: tables are laid out
    // afresh (the keys that stay still find their place: keys first).
    if (on != allow_both_) ports_.clear();
    allow_both_ = on;
}

std::optional<std::size_t> IndexBook::index_of(Guid node, std::uint8_t port, std::uint16_t key) const
{
    auto it = ports_.find({node, port});
    if (it == ports_.end()) return std::nullopt;
    auto k = it->second.index.find(key_of(key));
    if (k == it->second.index.end()) return std::nullopt;
    return k->second;
}

PortTable IndexBook::place(Guid node, std::uint8_t port, const std::vector<std::uint16_t>& keys, std::uint16_t index0,
                           std::size_t capacity)
{
    const std::size_t cap = capacity ? capacity : mad::pkey_block_size;
    auto& mem = ports_[{node, port}];
    // Index 0: the indx0 key, else the default partition's; with
    // allow_both_pkeys only its full key 0xFFFF (OpenSM compares whole keys
    // then: a port holding only 0x7FFF gets it after its other keys, and
    // index 0 stays empty, as OpenSM leaves it).
    std::optional<std::uint16_t> zero;
    if (index0) {
        zero = key_of(index0);
    } else {
        for (auto k : keys)
            if (allow_both_ ? k == 0xffff : mad::pkey_base(k) == 0x7fff) zero = key_of(k);
    }
    PortTable out;
    out.needed = keys.size();
    out.capacity = cap;
    std::map<std::size_t, std::uint16_t> placed; // index -> key
    std::vector<std::uint16_t> fresh;
    for (auto k : keys) {
        const auto kk = key_of(k);
        const bool is_zero = zero && kk == *zero;
        auto it = mem.index.find(kk);
        if (it == mem.index.end()) {
            fresh.push_back(k);
            continue;
        }
        const auto idx = it->second;
        if (is_zero != (idx == 0) || idx >= cap || placed.count(idx)) {
            mem.index.erase(it);
            fresh.push_back(k);
            continue;
        }
        placed[idx] = k;
    }
    std::optional<std::size_t> highest;
    for (const auto& [k, idx] : mem.index) highest = std::max(highest.value_or(0), idx);
    auto take = [&](std::uint16_t kk, std::size_t idx) {
        std::erase_if(mem.index, [&](const auto& e) { return e.second == idx && e.first != kk; });
        mem.index[kk] = idx;
        if (!highest || idx > *highest) highest = idx;
    };
    for (auto k : fresh) {
        const auto kk = key_of(k);
        std::size_t idx = 0;
        if (!(zero && kk == *zero)) {
            idx = highest ? *highest + 1 : 1;
            if (idx >= cap) {
                // Past the table: the first free entry from index 1.
                idx = 0;
                for (std::size_t i = 1; i < cap; ++i)
                    if (!placed.count(i)) {
                        idx = i;
                        break;
                    }
                if (idx == 0) {
                    ++out.dropped;
                    out.dropped_keys.push_back(k);
                    continue;
                }
            }
        }
        placed[idx] = k;
        take(kk, idx);
    }
    mem.extent = std::max(mem.extent, std::min(whole_blocks(cap), whole_blocks(highest.value_or(0) + 1)));
    out.entries.assign(mem.extent, 0);
    for (const auto& [idx, k] : placed)
        if (idx < out.entries.size()) out.entries[idx] = k;
    return out;
}

void IndexBook::learn(Guid node, std::uint8_t port, const std::vector<std::uint16_t>& entries)
{
    auto& mem = ports_[{node, port}];
    mem.index.clear();
    std::optional<std::size_t> highest;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (mad::pkey_empty(entries[i])) continue;
        // A key held twice keeps its first index; the second is written empty.
        mem.index.try_emplace(key_of(entries[i]), i);
        highest = i;
    }
    if (highest) mem.extent = std::max(mem.extent, whole_blocks(*highest + 1));
}

PortTable peer_table(const std::vector<std::uint16_t>& ca, std::size_t enforce_cap)
{
    PortTable out;
    std::vector<std::uint16_t> keys;
    for (auto k : ca) {
        if (mad::pkey_empty(k)) continue;
        if (!mad::pkey_full(k) && std::find(ca.begin(), ca.end(), static_cast<std::uint16_t>(k | 0x8000)) != ca.end())
            continue;
        ++out.needed;
        if (keys.size() >= enforce_cap) {
            ++out.dropped;
            out.dropped_keys.push_back(k);
            continue;
        }
        keys.push_back(k);
    }
    out.capacity = enforce_cap;
    out.entries.assign(whole_blocks(keys.size()), 0);
    std::copy(keys.begin(), keys.end(), out.entries.begin());
    return out;
}

} // namespace ibsm::partition
