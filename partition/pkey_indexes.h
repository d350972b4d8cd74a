// Where each P_Key sits in a port's P_Key table, kept from sweep to sweep.
//
// Why: IPoIB and every verbs QP address a partition by its index in the
// port's table, not by its P_Key. A change of the partitions must not move
// the keys that stay: an interface whose key moved loses its partition.
// OpenSM keeps indexes (keep_pkey_indexes, its accum_pkeys); ibsmd does
// the same, and lays new tables out as OpenSM does, so a fabric moved from
// OpenSM reads the same tables.
//
// Data structures: per port (node GUID, port number) the index every key
// it ever held got (by P_Key, or by partition without allow_both_pkeys)
// and the highest index used.
//
// Algorithm (osm_pkey_mgr.c, pkey_mgr_process_physical_port and
// pkey_mgr_update_port): index 0 holds the port's indx0 key, else the
// default partition's key (with allow_both_pkeys only 0xFFFF: a limited
// 0x7FFF comes after the port's other keys and index 0 stays empty, as
// OpenSM lays it out). A key the port had keeps its index, unless that
// index is 0 and it is not the index 0 key. A new key, in the port's key
// order, takes the index it had before if it was free, else the one after
// the highest ever used (index 1 on a fresh port); past the capacity, the
// first free entry from index 1 (whose old owner forgets it); with none
// free it is dropped. The table runs to the block of the highest index
// ever used, so an emptied entry is written as 0, never left behind.
// A switch port facing a CA holds that CA's keys packed from index 0,
// limited keys left out where the full one is there (pkey_mgr_update_peer_port).
#pragma once

#include "mad/types.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace ibsm::partition {

struct PortTable {
    std::vector<std::uint16_t> entries; // whole blocks of 32, 0 = empty
    std::size_t dropped = 0;            // keys that found no entry
    std::vector<std::uint16_t> dropped_keys; // which, in the order they came
    std::size_t needed = 0;             // keys the port was to hold
    std::size_t capacity = 0;           // entries the table has
};

class IndexBook {
public:
    explicit IndexBook(bool allow_both_pkeys = false) : allow_both_(allow_both_pkeys) {}

    // The table of (node, port) holding `keys` (Partitions::keys_of order);
    // `index0`: the indx0 key or 0; `capacity`: entries (0: one block).
    PortTable place(Guid node, std::uint8_t port, const std::vector<std::uint16_t>& keys, std::uint16_t index0,
                    std::size_t capacity);
    // A reset port: its table is laid out afresh.
    void forget(Guid node, std::uint8_t port) { ports_.erase({node, port}); }
    // Whether (node, port) was placed or learned in this process.
    bool knows(Guid node, std::uint8_t port) const { return ports_.count({node, port}) != 0; }
    // What (node, port) holds, read from the port (`entries`, whole blocks
    // from index 0): every key there keeps its index, as if this book had
    // placed it, so a new process (a restart, a standby taking over) keeps
    // the indexes the port's interfaces know; the extent covers the highest
    // key read, so a key no longer wanted is written empty.
    void learn(Guid node, std::uint8_t port, const std::vector<std::uint16_t>& entries);
    void set_allow_both(bool on);

    // The index `key` has on (node, port), if placed.
    std::optional<std::size_t> index_of(Guid node, std::uint8_t port, std::uint16_t key) const;

private:
    struct Memory {
        std::map<std::uint16_t, std::size_t> index; // by key_of
        std::size_t extent = 0;                    // entries written so far (whole blocks)
    };
    std::uint16_t key_of(std::uint16_t pkey) const { return allow_both_ ? pkey : pkey & 0x7fff; }

    bool allow_both_;
    std::map<std::pair<Guid, std::uint8_t>, Memory> ports_;
};

// The table of a switch port facing a CA whose table is `ca` (entries),
// for a switch with `enforce_cap` entries per port.
PortTable peer_table(const std::vector<std::uint16_t>& ca, std::size_t enforce_cap);

} // namespace ibsm::partition
