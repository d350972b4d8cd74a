// Switch multicast forwarding tables (attribute MulticastForwardingTable),
// programmed as desired vs confirmed like the LFT blocks
// (lft_programmer.h), from the groups' spanning trees (mcast/tree.h).
//
// Why: a join or leave changes the masks of a few switches on one MLID;
// only the (block, position) entries that changed may be sent, or every
// join of a 648-host IPoIB start-up would rewrite every switch's table.
//
// Data structures: per switch node GUID, the confirmed content of each
// (block, position) (mcast::ConfirmedMft); a block is confirmed only by a
// SetResp carrying it. Blocks once written stay in the desired range, so
// an MLID that is freed gets its entries cleared.
//
// Algorithm, per call: the desired blocks of every multicast-capable switch
// (MulticastFDBCap > 0) for MLIDs up to the highest in use, then up to
// `rounds` rounds of Sets of the blocks that differ, block-major so
// consecutive SMPs go to different switches.
#pragma once

#include "daemon/core/fabric_state.h"
#include "mad/transport.h"
#include "mcast/mft_blocks.h"
#include "mcast/tree.h"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ibsm::daemon {

struct MftReport {
    std::size_t switches = 0;
    std::uint64_t blocks_desired = 0;
    std::uint64_t blocks_sent = 0;
    std::uint64_t blocks_dirty = 0;
    std::vector<std::string> failures;
    bool complete() const { return blocks_dirty == 0; }
};

struct MftSettings {
    unsigned rounds = 3;
    std::size_t width = 64;
};

// Per switch: MLID -> ports.
using SwitchMasks = std::map<topology::NodeId, std::map<std::uint16_t, mcast::PortMask>>;

class MftProgrammer {
public:
    explicit MftProgrammer(MftSettings settings) : settings_(settings) {}

    // `top`: the highest MLID in use (Lid() when none).
    boost::asio::awaitable<MftReport> program(mad::Transport& transport, const DiscoveryResult& found,
                                              const SwitchMasks& masks, Lid top);
    // A switch whose tables are unknown again (reset, replaced).
    void forget(Guid switch_guid) { confirmed_.erase(switch_guid); }
    // What a switch's SetResps confirmed, per (block, position); null when
    // nothing was sent to it (the SA's MulticastForwardingTableRecords).
    const mcast::ConfirmedMft* confirmed(Guid switch_guid) const
    {
        auto it = confirmed_.find(switch_guid);
        return it == confirmed_.end() ? nullptr : &it->second;
    }

private:
    MftSettings settings_;
    std::map<Guid, mcast::ConfirmedMft> confirmed_;
};

} // namespace ibsm::daemon
