// P_Key tables (IBA 10.9.2, attribute P_KeyTable), programmed as desired vs
// confirmed like the LFT blocks (lft_programmer.h).
//
// Why: every port must hold the default partition (0xFFFF) before IPoIB
// and the SA can work on it, and the configured partitions' keys; a port
// whose table was never written holds what its firmware left there. A
// sweep that changes nothing must send nothing.
//
// Which ports (as OpenSM's osm_pkey_mgr.c): every CA/router port and every
// switch's port 0 get their own keys (NodeInfo:PartitionCap entries), laid
// out by partition::IndexBook so a key that stays keeps its index across
// partition changes; a switch port cabled to a CA gets that CA port's keys,
// packed, when the switch has a partition enforcement table
// (SwitchInfo:PartitionEnforcementCap > 0) and enforcement is on
// (part_enforce other than off), so the switch can filter the CA's traffic
// by partition. Ports between switches get none: they carry every
// partition. (The enforcement bits of PortInfo are the port programmer's.)
//
// A table too small for its keys (OpenSM's ERR 0507): a CA port or switch
// port 0 holds the keys that fit and the rest are named in the log; a
// switch port facing a CA gets what fits and loses partition enforcement
// (unenforced(): the port programmer clears its enforcement bits), so the
// keys left out are not dropped at the switch, as OpenSM does.
//
// Data structures: per (node GUID, port), the confirmed content of each
// 32-key block (nullopt: unknown); the IndexBook (where each key sits). A block is confirmed only by a SetResp
// carrying it; forget() drops ports whose links came up again (a reset port
// may have lost its table).
//
// First contact (no confirmed content, nothing placed in this process): a
// port some SM programmed before (a CA port ARMED or ACTIVE; a switch with a
// LinearFDBTop, for its port 0 and the ports facing CAs) has the blocks this
// sweep would write read first, and the keys it holds keep their indexes
// (IndexBook::learn). Read rather than taken from discovery: discovery does
// not read P_Key tables (a Get per block of every port would slow every
// heavy sweep for what only a new process needs), and the SMP a Get costs
// is the one the blind Set would have cost, but it changes nothing on a
// live port and tells where the hosts' interfaces find their keys: a
// restarted SM or a standby taking over then sends no block. Ports fresh
// from link-up (INIT) are written without reading, as the VL tables are.
//
// Algorithm, per sweep: the desired blocks of every port from
// partition::Partitions (keys past a port's capacity are reported, not
// sent; blocks written before and no longer needed are desired empty),
// then up to `rounds` rounds of Sets of the blocks that differ: a partition
// change sends only the blocks it changes.
#pragma once

#include "daemon/core/fabric_state.h"
#include "daemon/core/pkey_tables_held.h"
#include "mad/pkey_table.h"
#include "mad/transport.h"
#include "partition/partitions.h"
#include "partition/pkey_indexes.h"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::daemon {

struct PKeyReport {
    std::size_t ports = 0;
    std::uint64_t blocks_desired = 0;
    std::uint64_t blocks_read = 0; // Gets on first contact
    std::uint64_t blocks_sent = 0;
    std::uint64_t blocks_dirty = 0;
    std::uint64_t keys_dropped = 0; // keys that did not fit a port's table
    std::vector<std::string> failures;
    bool complete() const { return blocks_dirty == 0; }
};

struct PKeySettings {
    unsigned rounds = 3;
    std::size_t width = 64;
    // Switch ports facing CAs get the CA's keys (part_enforce not off).
    bool peer_tables = true;
};

// One port's table as the SM wants it.
struct PKeyTarget {
    Guid node_guid;
    std::uint8_t port = 0;
    DrPath path;
    bool switch_node = false;
    std::vector<mad::PKeyTable> blocks;
    std::size_t dropped = 0;
    std::vector<std::uint16_t> dropped_keys;
    std::size_t needed = 0;   // keys the port was to hold
    std::size_t capacity = 0; // entries its table has
    std::string name;
    std::string faces;        // a switch port facing a CA: that CA port's name; else empty
};

// What the log says of a target whose keys did not all fit (dropped > 0):
// which port, how many keys it needed, how many its table holds, what is
// left out and what the operator can do.
std::string overflow_text(const PKeyTarget& t);

// The tables of every port of `found` (see the header comment); `book`
// places the keys and remembers where.
std::vector<PKeyTarget> pkey_targets(const DiscoveryResult& found, const partition::Partitions& partitions,
                                     partition::IndexBook& book, bool peer_tables = true);

class PKeyProgrammer {
public:
    explicit PKeyProgrammer(PKeySettings settings) : settings_(settings) {}

    boost::asio::awaitable<PKeyReport> program(mad::Transport& transport, const DiscoveryResult& found,
                                               const partition::Partitions& partitions);
    // This sweep's tables laid out before program(): the switch ports
    // facing CAs whose keys do not fit their enforcement table, by (node
    // GUID, port). The port programmer turns partition enforcement off
    // there. With no port new to this process (every sweep after the
    // first), the layout is final and program() with the same `found` and
    // `partitions` sends from it instead of laying the tables out again;
    // otherwise it is made on a copy of the book, and program() lays them
    // out after the first contact's reads.
    std::set<std::pair<Guid, std::uint8_t>> unenforced(const DiscoveryResult& found,
                                                       const partition::Partitions& partitions);
    // Ports (node GUID, port number) whose tables are unknown again.
    void forget(const std::set<std::pair<Guid, std::uint8_t>>& ports);
    void set_peer_tables(bool on) { settings_.peer_tables = on; }
    const partition::IndexBook& indexes() const { return book_; }
    // Every port's blocks as the last program() wanted them (the SA's
    // P_KeyTableRecords; null before the first).
    std::shared_ptr<const PKeyTablesHeld> held() const { return held_; }

private:
    // Whether some port program() would write has no confirmed table yet.
    bool any_new(const DiscoveryResult& found) const;

    struct FirstRead {
        std::vector<std::optional<mad::PKeyTable>> blocks; // as read (nullopt: not answered)
        bool learn = false;                                // CA port or switch port 0: the book learns it
    };
    // See "First contact" in the header comment.
    boost::asio::awaitable<std::map<std::pair<Guid, std::uint8_t>, FirstRead>>
    read_first_contact(mad::Transport& transport, const DiscoveryResult& found,
                       const partition::Partitions& partitions, PKeyReport& report);

    PKeySettings settings_;
    std::map<std::pair<Guid, std::uint8_t>, std::vector<std::optional<mad::PKeyTable>>> confirmed_;
    partition::IndexBook book_;
    std::shared_ptr<const PKeyTablesHeld> held_;
    // unenforced()'s final layout, for the program() of the same sweep.
    struct Laid {
        const DiscoveryResult* found = nullptr;
        const partition::Partitions* partitions = nullptr;
        std::vector<PKeyTarget> targets;
    };
    std::optional<Laid> laid_;
    bool laid_for(const DiscoveryResult& found, const partition::Partitions& partitions) const
    {
        return laid_ && laid_->found == &found && laid_->partitions == &partitions;
    }
};

} // namespace ibsm::daemon
