#include "daemon/program/mft_programmer.h"

#include "daemon/core/smp_ops.h"
#include "daemon/core/work_pool.h"

#include <algorithm>

namespace ibsm::daemon {

namespace {

struct Target {
    Guid guid;
    std::string name;
    DrPath path;
    mcast::MftBlocks desired;
    mcast::ConfirmedMft* confirmed = nullptr;
};

} // namespace

boost::asio::awaitable<MftReport> MftProgrammer::program(mad::Transport& transport, const DiscoveryResult& found,
                                                         const SwitchMasks& masks, Lid top)
{
    MftReport report;
    const auto& f = found.fabric;
    const std::map<std::uint16_t, mcast::PortMask> none;
    std::vector<Target> targets;
    for (const auto& [id, si] : found.switch_info) {
        if (si.multicast_fdb_cap == 0) continue;
        const auto& node = f.node(id);
        auto& confirmed = confirmed_[node.guid];
        // Blocks for the MLIDs in use, and every block written before (so a
        // freed MLID is cleared), within what the switch holds.
        std::uint16_t blocks = mcast::blocks_for(top);
        for (const auto& [key, table] : confirmed)
            if (!table || *table != mad::MulticastForwardingTable{})
                blocks = std::max<std::uint16_t>(blocks, static_cast<std::uint16_t>(key.block + 1));
        blocks = std::min<std::uint16_t>(blocks, static_cast<std::uint16_t>(
                                                     (si.multicast_fdb_cap + mad::mft_block_size - 1) / mad::mft_block_size));
        if (blocks == 0) continue;
        auto it = masks.find(id);
        Target t;
        t.guid = node.guid;
        t.name = node.guid.str() + (node.description.empty() ? "" : " (" + node.description + ")");
        t.path = found.path_to(id);
        t.desired = mcast::switch_blocks(it == masks.end() ? none : it->second, node.num_ports(), blocks);
        t.confirmed = &confirmed;
        report.blocks_desired += t.desired.size();
        targets.push_back(std::move(t));
    }
    report.switches = targets.size();

    for (unsigned round = 0; round < std::max(1u, settings_.rounds); ++round) {
        std::vector<std::pair<Target*, mcast::MftBlockKey>> work;
        std::vector<std::vector<mcast::MftBlockKey>> changed(targets.size());
        std::size_t longest = 0;
        for (std::size_t i = 0; i < targets.size(); ++i) {
            changed[i] = mcast::changed_blocks(targets[i].desired, *targets[i].confirmed);
            longest = std::max(longest, changed[i].size());
        }
        for (std::size_t k = 0; k < longest; ++k)
            for (std::size_t i = 0; i < targets.size(); ++i)
                if (k < changed[i].size()) work.emplace_back(&targets[i], changed[i][k]);
        if (work.empty()) break;
        co_await run_jobs(std::move(work), settings_.width,
                          [&](std::pair<Target*, mcast::MftBlockKey> tk) -> boost::asio::awaitable<void> {
                              auto [t, key] = tk;
                              const auto& want = t->desired.at(key);
                              SmpData data{};
                              mad::encode(want, std::span<std::uint8_t, 64>(data));
                              auto r = co_await dr_set(transport, t->path, mad::attr_multicast_forwarding_table,
                                                       mad::mft_attr_mod(key.block, key.position), data);
                              ++report.blocks_sent;
                              auto& slot = (*t->confirmed)[key];
                              const std::string where = "switch " + t->name + " MFT block " +
                                                        std::to_string(key.block) + " position " +
                                                        std::to_string(key.position);
                              if (!r.ok()) {
                                  slot.reset();
                                  keep_failure(report.failures, where + ": Set " + failure_text(r));
                                  co_return;
                              }
                              auto got = mad::decode_multicast_forwarding_table(r.smp.data());
                              if (got && *got == want) {
                                  slot = *got;
                              } else {
                                  slot.reset();
                                  keep_failure(report.failures, where + ": Set answered with other content");
                              }
                          });
    }
    for (const auto& t : targets) report.blocks_dirty += mcast::changed_blocks(t.desired, *t.confirmed).size();
    co_return report;
}

} // namespace ibsm::daemon
