// Switch forwarding state: LinearForwardingTable blocks and SwitchInfo
// (LinearFDBTop, LifeTimeValue), programmed as desired vs confirmed.
//
// Why: a sweep that changes nothing must send nothing, and a restart of the
// daemon with unchanged routing must not rewrite every switch (tens of
// thousands of blocks on a large fabric). Failed Sets must not be forgotten.
//
// Data structures: per switch, keyed by node GUID so it survives sweeps of
// the same process, a 64-bit digest of the confirmed content of every
// 64-entry block (0: unknown) and the confirmed SwitchInfo values. A block
// is confirmed only by a GetResp/SetResp carrying it. A digest, not the
// block: 8 bytes a block instead of 65 (11 MB instead of 89 MB at 27 648
// hosts, docs/scale.md "Memory"); two contents that differ in one entry
// always differ in digest (FNV-1a: every step is a bijection of the state),
// as the VL programmer's tables do. Beside the digests, a bit per block
// says the switch holds that block of the last program()'s tables, which
// the programmer keeps (the snapshot and the chain's memory share them): a
// re-route compares its rows with those 64 bytes at a time and digests
// only the blocks whose entries changed or were not confirmed (at 27 648
// hosts, digesting all 1.4 million blocks took half a second of the loop
// on every re-route, for the 1 725 blocks one cable changes).
//
// Algorithm, per sweep:
//  1. first contact with a switch in this process: when its discovered
//     LinearFDBTop is non-zero it has been programmed before (by us or
//     another SM), so the blocks up to that top are read and become the
//     confirmed state; otherwise nothing is known and everything is sent;
//  2. up to `rounds` rounds: Set every block whose confirmed content differs
//     from the desired one (held as the last tables' block, with the same
//     entries now; else by digest), found switch by switch (a switch's
//     row is read in order) and listed block-major by a counting sort; a timed-out or rejected Set leaves it dirty for
//     the next round (and the next sweep). Requests are ordered block-major
//     (block 0 of every switch, then block 1, ...) so consecutive SMPs go to
//     different switches and no switch's queue grows;
//     A switch's LinearFDBCap bounds what it holds: blocks past it are
//     not sent and count as dirty (with a failure naming the switch and
//     the LIDs it cannot forward), so the sweep is not up;
//     each round (and the first contact's reads) is one batch
//     (core/smp_batch.h): no coroutine or completion handler per block;
//  3. SwitchInfo Set (read-modify-write of the discovered value) where
//     LinearFDBTop or LifeTimeValue differ — after the blocks, so a switch
//     never forwards by entries that are not written yet.
#pragma once

#include "daemon/core/fabric_state.h"
#include "mad/linear_forwarding_table.h"
#include "mad/transport.h"
#include "routing/tables.h"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::daemon {

// Block `b` of `lft`, entries beyond the table set to "no route".
mad::LinearForwardingTable desired_block(const routing::Lft& lft, std::size_t b);
// How many blocks LIDs 0..top take.
inline std::size_t block_count(Lid top) { return mad::lft_block_of(top) + 1; }
// The blocks 0..top/64 of `lft` (desired_block of each).
std::vector<mad::LinearForwardingTable> desired_blocks(const routing::Lft& lft, Lid top);

struct LftReport {
    std::size_t switches = 0;
    std::uint64_t blocks_desired = 0;
    std::uint64_t blocks_read = 0;   // Gets on first contact
    std::uint64_t blocks_sent = 0;   // Sets, retries included
    std::uint64_t blocks_digested = 0; // compared by digest: not held as the last tables' block with the same entries
    std::uint64_t blocks_dirty = 0;  // still unconfirmed after the last round
    std::uint64_t switch_info_sent = 0;
    std::uint64_t switch_info_failed = 0;
    std::uint64_t switches_over_cap = 0; // top LID at or past the switch's LinearFDBCap
    std::uint64_t blocks_unsendable = 0; // of switches without SwitchInfo, or past their cap (in blocks_dirty)
    std::vector<std::string> failures; // the first few, for the log
    bool complete() const { return blocks_dirty == 0 && switch_info_failed == 0; }
};

struct LftSettings {
    std::uint8_t life_time_value = 18; // SwitchInfo LifeTimeValue (5 bits)
    unsigned rounds = 3;               // Set rounds per sweep
    std::size_t width = 64;            // jobs in flight (the transport window bounds the wire)
};

class LftProgrammer {
public:
    explicit LftProgrammer(LftSettings settings) : settings_(settings) {}

    // `tables` are kept until the next program() (see the header comment):
    // they must not change, as the snapshot's and the chain's do not.
    boost::asio::awaitable<LftReport> program(mad::Transport& transport, const DiscoveryResult& fabric,
                                              std::shared_ptr<const routing::RoutingTables> tables);

private:
    struct Confirmed {
        std::vector<std::uint64_t> blocks; // block_digest of what the switch holds; 0: unknown
        // Block b is held as it is in *last_row (last_'s row of this
        // switch): confirmed as desired by the last program().
        std::vector<bool> as_last;
        const routing::Lft* last_row = nullptr;
        std::optional<std::uint16_t> top;
        std::optional<std::uint8_t> life_time;
    };
    struct Target;

    boost::asio::awaitable<void> read_first_contact(mad::Transport& transport, std::vector<Target>& targets,
                                                    LftReport& report);
    boost::asio::awaitable<void> send_blocks(mad::Transport& transport, std::vector<Target>& targets,
                                             LftReport& report);
    boost::asio::awaitable<void> send_switch_info(mad::Transport& transport, std::vector<Target>& targets,
                                                  LftReport& report);

    LftSettings settings_;
    std::map<Guid, Confirmed> confirmed_;
    std::shared_ptr<const routing::RoutingTables> last_; // the rows Confirmed::last_row points into
};

} // namespace ibsm::daemon
