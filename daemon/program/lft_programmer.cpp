#include "daemon/program/lft_programmer.h"

#include "daemon/core/smp_batch.h"
#include "daemon/core/smp_ops.h"
#include "daemon/core/work_pool.h"
#include "mad/switch_info.h"

#include <algorithm>

namespace ibsm::daemon {

mad::LinearForwardingTable desired_block(const routing::Lft& lft, std::size_t b)
{
    mad::LinearForwardingTable block;
    block.ports.fill(mad::lft_no_route);
    const std::size_t first = b * mad::lft_block_size;
    if (first < lft.port.size()) {
        const std::size_t n = std::min(mad::lft_block_size, lft.port.size() - first);
        std::copy_n(lft.port.begin() + static_cast<std::ptrdiff_t>(first), n, block.ports.begin());
    }
    return block;
}

namespace {

// FNV-1a over the 64 entries, never 0 (0 means unknown): each step (xor a
// byte, multiply by an odd prime) is a bijection of the state, so blocks
// that differ in a single entry always differ here.
template <class Entries>
std::uint64_t fnv_digest(Entries entry)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (std::size_t i = 0; i < mad::lft_block_size; ++i) {
        h ^= entry(i);
        h *= 0x100000001b3ULL;
    }
    return h == 0 ? 1 : h;
}

std::uint64_t block_digest(const mad::LinearForwardingTable& block)
{
    return fnv_digest([&](std::size_t i) { return block.ports[i]; });
}

// block_digest(desired_block(lft, b)), read from the row in place.
std::uint64_t row_block_digest(const routing::Lft& lft, std::size_t b)
{
    const std::size_t first = b * mad::lft_block_size;
    return fnv_digest([&](std::size_t i) {
        return first + i < lft.port.size() ? lft.port[first + i] : routing::no_route;
    });
}

// desired_block(a, b) == desired_block(c, b), without building either.
bool same_block(const routing::Lft& a, const routing::Lft& c, std::size_t b)
{
    const std::size_t first = b * mad::lft_block_size, end = first + mad::lft_block_size;
    if (a.port.size() >= end && c.port.size() >= end)
        return std::equal(a.port.begin() + static_cast<std::ptrdiff_t>(first),
                          a.port.begin() + static_cast<std::ptrdiff_t>(end),
                          c.port.begin() + static_cast<std::ptrdiff_t>(first));
    for (std::size_t l = first; l < end; ++l)
        if (a.at(Lid(static_cast<std::uint16_t>(l))) != c.at(Lid(static_cast<std::uint16_t>(l)))) return false;
    return true;
}

// A block to read or send: the target's index and the block number in 32
// bits. A bring-up's round lists every block (1.4 million at 27 648 hosts:
// 22 MB as pointer and index pairs, more while the list grows).
class BlockAt {
public:
    static constexpr unsigned block_bits = 10; // LinearFDBTop 0xBFFF: 768 blocks
    BlockAt(std::size_t target, std::size_t block) : packed_(static_cast<std::uint32_t>(target << block_bits | block)) {}
    std::size_t target() const { return packed_ >> block_bits; }
    std::size_t block() const { return packed_ & ((1u << block_bits) - 1); }

private:
    std::uint32_t packed_;
};
static_assert((0xBFFF / mad::lft_block_size) < (1u << BlockAt::block_bits));

// The blocks the switches do not hold as desired (Target: LftProgrammer's).
template <class Target>
std::vector<BlockAt> differing_blocks(const std::vector<Target>& targets, LftReport& report)
{
    // Switch by switch, so each row and its confirmed digests are read in
    // order, then block-major (block 0 of every switch, then block 1, ...)
    // by a counting sort that keeps the switches' order.
    std::vector<BlockAt> found;
    std::vector<std::size_t> per_block;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        const auto& t = targets[i];
        if (per_block.size() < t.blocks + 1) per_block.resize(t.blocks + 1);
        for (std::size_t b = 0; b < t.blocks; ++b) {
            if (t.unchanged_since_last(b)) continue;
            ++report.blocks_digested;
            if (t.confirmed_as_desired(b)) continue;
            found.emplace_back(i, b);
            ++per_block[b + 1];
        }
    }
    for (std::size_t b = 1; b < per_block.size(); ++b) per_block[b] += per_block[b - 1];
    std::vector<BlockAt> out(found.size(), BlockAt(0, 0));
    for (const auto at : found) out[per_block[at.block()]++] = at;
    return out;
}

} // namespace

std::vector<mad::LinearForwardingTable> desired_blocks(const routing::Lft& lft, Lid top)
{
    std::vector<mad::LinearForwardingTable> blocks(block_count(top));
    for (std::size_t b = 0; b < blocks.size(); ++b) blocks[b] = desired_block(lft, b);
    return blocks;
}

struct LftProgrammer::Target {
    Guid guid;
    std::string name;
    DrPath path;
    // The engine's table, read block by block when compared or sent: a
    // re-route that changes a few hundred blocks of a large fabric must not
    // copy all of them (1.4 million at 27 648 hosts).
    const routing::Lft* lft = nullptr;
    std::size_t blocks = 0; // block_count(top)
    std::uint16_t top = 0;
    mad::SwitchInfo current;
    Confirmed* confirmed = nullptr;
    bool first_contact = false;
    std::vector<bool> held; // after send_blocks: block b confirmed as desired (Confirmed::as_last to be)

    mad::LinearForwardingTable desired(std::size_t b) const { return desired_block(*lft, b); }
    bool confirmed_as_desired(std::size_t b) const
    {
        const std::uint64_t c = confirmed->blocks[b];
        return c != 0 && c == row_block_digest(*lft, b);
    }
    // Held as the last tables' block, whose entries are the same now.
    bool unchanged_since_last(std::size_t b) const
    {
        const auto& c = *confirmed;
        return c.last_row && b < c.as_last.size() && c.as_last[b] && same_block(*c.last_row, *lft, b);
    }

    std::string where(std::size_t block) const
    {
        return "switch " + guid.str() + (name.empty() ? "" : " (" + name + ")") + " block " + std::to_string(block);
    }
};

boost::asio::awaitable<LftReport> LftProgrammer::program(mad::Transport& transport, const DiscoveryResult& found,
                                                         std::shared_ptr<const routing::RoutingTables> shared)
{
    const routing::RoutingTables& tables = *shared;
    LftReport report;
    std::vector<Target> targets;
    const auto& fabric = found.fabric;
    for (const auto& [id, lft] : tables.lfts) {
        const auto& node = fabric.node(id);
        auto si = found.switch_info.find(id);
        if (si == found.switch_info.end()) {
            // Never answered SwitchInfo during discovery: nothing to
            // read-modify-write; count its blocks as dirty so the sweep is not up.
            report.blocks_unsendable += mad::lft_block_of(tables.linear_fdb_top) + 1;
            keep_failure(report.failures, "switch " + node.guid.str() + ": no SwitchInfo from discovery");
            continue;
        }
        Target t;
        t.guid = node.guid;
        t.name = node.description;
        t.path = found.path_to(id);
        t.lft = &lft;
        t.blocks = block_count(tables.linear_fdb_top);
        t.top = tables.linear_fdb_top.value();
        t.current = si->second;
        // A switch holds LIDs below its LinearFDBCap only (ibsim's default
        // 30 720, many switches 49 152): the blocks it can hold are sent,
        // LinearFDBTop stops below the cap, and the rest counts as dirty so
        // the sweep never claims routes the switch cannot forward.
        if (const unsigned cap = si->second.linear_fdb_cap; cap != 0 && t.top >= cap) {
            const std::size_t fit = cap / mad::lft_block_size;
            report.blocks_unsendable += t.blocks - fit;
            ++report.switches_over_cap;
            keep_failure(report.failures, "switch " + node.guid.str() + (node.description.empty() ? "" : " (" + node.description + ")") +
                                              ": LinearFDBCap " + std::to_string(cap) + ", top LID " +
                                              std::to_string(t.top) + ": LIDs " + std::to_string(cap) + ".." +
                                              std::to_string(t.top) + " cannot be forwarded by it");
            t.blocks = fit;
            t.top = static_cast<std::uint16_t>(cap - 1);
        }
        auto [it, inserted] = confirmed_.try_emplace(node.guid);
        t.confirmed = &it->second;
        // A switch reporting LinearFDBTop 0 holds nothing we can trust (new,
        // or reset since we last programmed it).
        if (si->second.linear_fdb_top == 0 && !inserted) *t.confirmed = Confirmed{};
        t.first_contact = inserted;
        t.confirmed->blocks.resize(std::max(t.confirmed->blocks.size(), t.blocks));
        report.blocks_desired += t.blocks;
        targets.push_back(std::move(t));
    }
    report.switches = targets.size();

    co_await read_first_contact(transport, targets, report);
    co_await send_blocks(transport, targets, report);
    // What the blocks confirmed is held against these tables from now on;
    // no row of the tables before survives them.
    for (auto& [guid, c] : confirmed_) {
        c.last_row = nullptr;
        c.as_last.clear();
    }
    for (auto& t : targets) {
        t.confirmed->last_row = t.lft;
        t.confirmed->as_last = std::move(t.held);
    }
    last_ = std::move(shared);
    co_await send_switch_info(transport, targets, report);
    co_return report;
}

boost::asio::awaitable<void> LftProgrammer::read_first_contact(mad::Transport& transport, std::vector<Target>& targets,
                                                               LftReport& report)
{
    std::size_t max_blocks = 0;
    for (const auto& t : targets) max_blocks = std::max(max_blocks, t.blocks);
    std::vector<BlockAt> blocks;
    for (std::size_t b = 0; b < max_blocks; ++b) {
        for (std::size_t i = 0; i < targets.size(); ++i) {
            const auto& t = targets[i];
            if (!t.first_contact || t.current.linear_fdb_top == 0) continue;
            const std::size_t programmed = mad::lft_block_of(Lid(t.current.linear_fdb_top)) + 1;
            if (b >= t.blocks || b >= programmed) continue;
            blocks.emplace_back(i, b);
        }
    }
    co_await send_batch(
        transport, blocks.size(),
        [&](std::size_t i, mad::SmpRequest& req) {
            const Target& t = targets[blocks[i].target()];
            req.smp = mad::make_dr_request(mad::Method::get, t.path, mad::attr::linear_forwarding_table,
                                           static_cast<std::uint32_t>(blocks[i].block()), 0);
        },
        [&](std::size_t i, const mad::SmpResponse& r) {
            Target& t = targets[blocks[i].target()];
            ++report.blocks_read;
            if (!r.ok()) return; // unknown: it will be sent
            if (auto block = mad::decode_linear_forwarding_table(r.smp.data()))
                t.confirmed->blocks[blocks[i].block()] = block_digest(*block);
        });
    // Discovery just read SwitchInfo: that is what the switch holds now.
    for (auto& t : targets) {
        t.confirmed->top = t.current.linear_fdb_top;
        t.confirmed->life_time = t.current.life_time_value;
    }
}

boost::asio::awaitable<void> LftProgrammer::send_blocks(mad::Transport& transport, std::vector<Target>& targets,
                                                        LftReport& report)
{
    std::vector<BlockAt> blocks = differing_blocks(targets, report); // after the rounds: the last round's list
    for (unsigned round = 0; round < std::max(1u, settings_.rounds); ++round) {
        // A round changes only what it sends, so only the last round's
        // blocks can still differ.
        if (round > 0)
            std::erase_if(blocks, [&](BlockAt at) { return targets[at.target()].confirmed_as_desired(at.block()); });
        if (blocks.empty()) break;
        // One batch per round: the transport pulls the blocks as its window
        // frees up; each answer confirms its block (or leaves it dirty for
        // the next round) as it arrives.
        co_await send_batch(
            transport, blocks.size(),
            [&](std::size_t i, mad::SmpRequest& req) {
                const Target* t = &targets[blocks[i].target()];
                const std::size_t b = blocks[i].block();
                SmpData data{};
                mad::encode(t->desired(b), std::span<std::uint8_t, 64>(data));
                req.smp = mad::make_dr_request(mad::Method::set, t->path, mad::attr::linear_forwarding_table,
                                               static_cast<std::uint32_t>(b), 0, data);
            },
            [&](std::size_t i, const mad::SmpResponse& r) {
                Target* t = &targets[blocks[i].target()];
                const std::size_t b = blocks[i].block();
                ++report.blocks_sent;
                if (!r.ok()) {
                    keep_failure(report.failures, t->where(b) + ": LFT Set " + failure_text(r));
                    return;
                }
                auto block = mad::decode_linear_forwarding_table(r.smp.data());
                if (block && *block == t->desired(b)) {
                    t->confirmed->blocks[b] = block_digest(*block);
                } else {
                    t->confirmed->blocks[b] = 0;
                    keep_failure(report.failures, t->where(b) + ": LFT Set answered with other content");
                }
            });
    }
    // Blocks no Set could place count as dirty whatever the rounds did.
    // Only the last round's blocks can still differ: every other block was
    // confirmed as desired when that round was listed, and a round changes
    // only what it sends. (Checking every block again cost a second digest
    // of all of them: 1.4 million at 27 648 hosts, on every re-route.)
    report.blocks_dirty = report.blocks_unsendable;
    for (auto& t : targets) t.held.assign(t.blocks, true);
    for (const auto& at : blocks)
        if (!targets[at.target()].confirmed_as_desired(at.block())) {
            ++report.blocks_dirty;
            targets[at.target()].held[at.block()] = false;
        }
}

boost::asio::awaitable<void> LftProgrammer::send_switch_info(mad::Transport& transport, std::vector<Target>& targets,
                                                             LftReport& report)
{
    const std::uint8_t life = settings_.life_time_value;
    std::vector<Target*> stale;
    for (auto& t : targets)
        // A set PortStateChange is cleared by the same Set (the bit is
        // written back as read: 1 clears it), so the first light sweep after a
        // bring-up does not mistake link-up for a change.
        if (t.confirmed->top != t.top || t.confirmed->life_time != life || t.current.port_state_change)
            stale.push_back(&t);
    co_await run_jobs(std::move(stale), settings_.width, [&](Target* tp) -> boost::asio::awaitable<void> {
            Target& t = *tp;
            mad::SwitchInfo si = t.current;
            si.linear_fdb_top = t.top;
            si.life_time_value = life;
            SmpData data{};
            mad::encode(si, std::span<std::uint8_t, 64>(data));
            for (unsigned attempt = 0; attempt < 2; ++attempt) {
                auto r = co_await dr_set(transport, t.path, mad::attr::switch_info, 0, data);
                ++report.switch_info_sent;
                if (!r.ok()) {
                    keep_failure(report.failures, "switch " + t.guid.str() + ": SwitchInfo Set " + failure_text(r));
                    continue;
                }
                auto got = mad::decode_switch_info(r.smp.data());
                if (got && got->linear_fdb_top == t.top) {
                    t.confirmed->top = got->linear_fdb_top;
                    t.confirmed->life_time = got->life_time_value;
                    co_return;
                }
                keep_failure(report.failures, "switch " + t.guid.str() + ": SwitchInfo Set did not take LinearFDBTop");
            }
            ++report.switch_info_failed;
    });
}

} // namespace ibsm::daemon
