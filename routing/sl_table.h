// The service level of every (source port, destination LID) pair, for engines
// that spread routes over virtual layers (dfsssp) and for the SA's
// PathRecord answers later.
//
// Why dense: a 3 456-host tree has ~4 200 addressable ports and as many
// LIDs, 17.6 M pairs; a std::map of pairs needs ~48 bytes a pair (gigabytes),
// this table half a byte (8.8 MB; 88 MB at 11 664 hosts).
//
// Data structures: one row per source port that was given a row (CA ports,
// switch port 0), rows found through a sorted vector of PortRef; each row
// holds one 4-bit SL per LID 0..lid_limit-1, two to a byte. Sources without
// a row and LIDs past the limit have SL 0. Header-only: the analysis
// library reads it without linking the engines.
#pragma once

#include "topology/fabric.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <optional>
#include <vector>

namespace ibsm::routing {

class SlTable {
public:
    SlTable() = default;
    // A row for each of `sources` (duplicates are dropped), every SL 0.
    SlTable(std::vector<topology::PortRef> sources, std::uint32_t lid_limit);

    bool empty() const { return sources_.empty(); }
    std::uint32_t lid_limit() const { return lid_limit_; }
    // The sources with a row, sorted; row r is sources()[r].
    const std::vector<topology::PortRef>& sources() const { return sources_; }
    std::optional<std::size_t> row_of(topology::PortRef source) const;

    std::uint8_t get(std::size_t row, std::uint32_t lid) const
    {
        if (lid >= lid_limit_) return 0;
        auto byte = bytes_[row * stride_ + lid / 2];
        return (lid & 1) ? static_cast<std::uint8_t>(byte >> 4) : static_cast<std::uint8_t>(byte & 0x0f);
    }
    // sl must be 0..15 (asserted); lid < lid_limit.
    void set(std::size_t row, std::uint32_t lid, std::uint8_t sl);
    // SL 0 for a source without a row or a LID past the limit.
    std::uint8_t at(topology::PortRef source, Lid lid) const;
    // Highest SL in the table (0 when empty).
    std::uint8_t max_sl() const;

    bool operator==(const SlTable&) const = default;

private:
    std::vector<topology::PortRef> sources_;
    std::uint32_t lid_limit_ = 0;
    std::size_t stride_ = 0; // bytes per row
    std::vector<std::uint8_t> bytes_;
};

inline SlTable::SlTable(std::vector<topology::PortRef> sources, std::uint32_t lid_limit)
    : sources_(std::move(sources)), lid_limit_(lid_limit), stride_((lid_limit + 1) / 2)
{
    std::sort(sources_.begin(), sources_.end());
    sources_.erase(std::unique(sources_.begin(), sources_.end()), sources_.end());
    bytes_.assign(sources_.size() * stride_, 0);
}

inline std::optional<std::size_t> SlTable::row_of(topology::PortRef source) const
{
    auto it = std::lower_bound(sources_.begin(), sources_.end(), source);
    if (it == sources_.end() || *it != source) return std::nullopt;
    return static_cast<std::size_t>(it - sources_.begin());
}

inline void SlTable::set(std::size_t row, std::uint32_t lid, std::uint8_t sl)
{
    assert(sl < 16 && lid < lid_limit_ && row < sources_.size());
    auto& byte = bytes_[row * stride_ + lid / 2];
    if (lid & 1)
        byte = static_cast<std::uint8_t>((byte & 0x0f) | (sl << 4));
    else
        byte = static_cast<std::uint8_t>((byte & 0xf0) | sl);
}

inline std::uint8_t SlTable::at(topology::PortRef source, Lid lid) const
{
    auto row = row_of(source);
    return row ? get(*row, lid.value()) : 0;
}

inline std::uint8_t SlTable::max_sl() const
{
    std::uint8_t m = 0;
    for (auto b : bytes_) m = std::max<std::uint8_t>(m, static_cast<std::uint8_t>(std::max(b & 0x0f, b >> 4)));
    return m;
}

} // namespace ibsm::routing
