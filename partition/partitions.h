// Partition membership (IBA 10.9): which P_Keys each end port holds, and
// the P_Key tables the SM writes so the ports hold them.
//
// Why: a port can only exchange packets with ports whose P_Key tables
// share a partition (at least one side a full member), IPoIB reads its
// interfaces from the table, and the SA must not hand out a PathRecord
// between ports that share none. One pure model answers all three.
//
// Data structures: the definitions in configuration order, the default
// partition (0x7fff) first, which every port holds as a full member
// (0xffff, as OpenSM's default partitions.conf `Default=0x7fff : ALL=full`);
// per port GUID the index and membership of every other partition it is
// listed in. The SM's own port is a full member of every partition, as in
// OpenSM: the SA must be able to answer every port.
//
// Algorithm: a port's keys are its partitions in definition order with the
// membership bit; a P_Key table of C entries holds them in blocks of 32,
// zero-filled. A path between two ports uses the first partition both hold
// with at least one full member (or the one asked for, if that holds).
#pragma once

#include "mad/pkey_table.h"
#include "mad/types.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ibsm::partition {

inline constexpr std::uint16_t default_partition = 0x7fff;

struct Definition {
    std::string name;
    std::uint16_t number = 0; // 0x0001..0x7ffe
    bool ipoib = true;        // has an IPoIB broadcast group
    std::vector<std::pair<Guid, bool>> members; // port GUID, full member
};

class Partitions {
public:
    // `defs` must have distinct numbers other than 0x7fff (config/ checks).
    explicit Partitions(std::vector<Definition> defs = {}, Guid sm_port = Guid());

    // The P_Keys `port` holds, default partition first, membership bit set
    // for full members.
    std::vector<std::uint16_t> keys_of(Guid port) const;
    // The P_Key a path between `a` and `b` uses, or nullopt when they
    // share no partition with a full member on either side. With `asked`,
    // only that partition (its membership bit ignored) is considered.
    std::optional<std::uint16_t> path_pkey(Guid a, Guid b, std::optional<std::uint16_t> asked = {}) const;

    // Every partition, the default one first.
    const std::vector<Definition>& definitions() const { return defs_; }

private:
    std::vector<Definition> defs_;
    Guid sm_port_;
    // port GUID -> (definition index, full) for the configured partitions.
    std::unordered_map<Guid, std::vector<std::pair<std::size_t, bool>>> listed_;
};

// The P_Key table blocks to write for `keys` on a port with `capacity`
// entries (0: not known, one block assumed): enough blocks for the keys,
// unused entries 0. Keys beyond the capacity do not fit; `dropped` counts them.
std::vector<mad::PKeyTable> table_blocks(std::span<const std::uint16_t> keys, std::size_t capacity,
                                         std::size_t* dropped = nullptr);

} // namespace ibsm::partition
