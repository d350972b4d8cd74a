#include "daemon/program/pkey_programmer.h"

#include "daemon/core/smp_batch.h"
#include "daemon/core/smp_ops.h"

#include <algorithm>
#include <map>

namespace ibsm::daemon {

using topology::PortRef;

std::vector<PKeyTarget> pkey_targets(const DiscoveryResult& found, const partition::Partitions& partitions,
                                     partition::IndexBook& book, bool peer_tables)
{
    std::vector<PKeyTarget> out;
    const auto& f = found.fabric;
    auto add = [&](const topology::Node& node, std::uint8_t port, DrPath path, const partition::PortTable& table,
                   std::string faces = {}) {
        PKeyTarget t;
        t.node_guid = node.guid;
        t.port = port;
        t.path = path;
        t.switch_node = node.is_switch();
        t.dropped = table.dropped;
        t.dropped_keys = table.dropped_keys;
        t.needed = table.needed;
        t.capacity = table.capacity;
        t.faces = std::move(faces);
        t.blocks.resize(std::max<std::size_t>(1, table.entries.size() / mad::pkey_block_size));
        for (std::size_t i = 0; i < table.entries.size(); ++i)
            t.blocks[i / mad::pkey_block_size].keys[i % mad::pkey_block_size] = table.entries[i];
        t.name = node.guid.str() + (node.description.empty() ? "" : " (" + node.description + ")") + " port " +
                 std::to_string(port);
        out.push_back(std::move(t));
    };
    // End ports first: a switch port facing a CA copies the CA's table.
    std::map<PortRef, std::vector<std::uint16_t>> end_tables;
    for (auto id : f.node_ids()) {
        const auto& node = f.node(id);
        if (node.is_switch()) {
            const auto table = book.place(node.guid, 0, partitions.keys_of(node.guid),
                                          partitions.index0_key(node.guid), node.partition_cap);
            add(node, 0, found.path_to(id), table);
            continue;
        }
        for (std::uint8_t p = 1; p <= node.num_ports(); ++p) {
            const PortRef ref{id, PortNum(p)};
            const auto& port = f.port(ref);
            // A CA answers only on ports the SM reaches: its own, or cabled.
            if (!port.known || port.guid.is_zero() || (ref != found.sm_port && !f.remote(ref))) continue;
            const auto table = book.place(node.guid, p, partitions.keys_of(port.guid), partitions.index0_key(port.guid),
                                          node.partition_cap);
            add(node, p, path_to_port(found, ref), table);
            end_tables.emplace(ref, table.entries);
        }
    }
    if (!peer_tables) return out;
    for (auto id : f.node_ids()) {
        const auto& node = f.node(id);
        if (!node.is_switch()) continue;
        auto si = found.switch_info.find(id);
        const std::uint16_t enforce = si == found.switch_info.end() ? 0 : si->second.partition_enforcement_cap;
        if (enforce == 0) continue;
        for (std::uint8_t p = 1; p <= node.num_ports(); ++p) {
            auto far = f.remote(PortRef{id, PortNum(p)});
            if (!far) continue;
            auto ca = end_tables.find(*far);
            if (ca == end_tables.end()) continue;
            const auto& ca_node = f.node(far->node);
            add(node, p, found.path_to(id), partition::peer_table(ca->second, enforce),
                ca_node.guid.str() + (ca_node.description.empty() ? "" : " (" + ca_node.description + ")") +
                    " port " + std::to_string(far->port.value()));
        }
    }
    return out;
}

bool PKeyProgrammer::any_new(const DiscoveryResult& found) const
{
    const auto& f = found.fabric;
    for (const auto& [ref, pi] : found.port_info) {
        const auto& node = f.node(ref.node);
        if (node.is_switch() && ref.port.value() != 0) {
            const auto far = f.remote(ref);
            const auto si = found.switch_info.find(ref.node);
            if (!settings_.peer_tables || !far || f.node(far->node).is_switch() || si == found.switch_info.end() ||
                si->second.partition_enforcement_cap == 0)
                continue;
        }
        if (!confirmed_.count({node.guid, ref.port.value()})) return true;
    }
    return false;
}

boost::asio::awaitable<std::map<std::pair<Guid, std::uint8_t>, PKeyProgrammer::FirstRead>>
PKeyProgrammer::read_first_contact(mad::Transport& transport, const DiscoveryResult& found,
                                   const partition::Partitions& partitions, PKeyReport& report)
{
    std::map<std::pair<Guid, std::uint8_t>, FirstRead> out;
    const auto& f = found.fabric;
    // Every port known already (each sweep after a process's first): no
    // second layout of the whole fabric's tables. unenforced() found that
    // already when it laid this sweep's tables out.
    if (laid_for(found, partitions) || !any_new(found)) co_return out;
    // Which ports and blocks, as this sweep would write them, without
    // placing anything in the book yet.
    auto scratch = book_;
    const auto probe = pkey_targets(found, partitions, scratch, settings_.peer_tables);
    std::vector<std::pair<const PKeyTarget*, std::size_t>> reads;
    std::size_t most = 0;
    for (const auto& t : probe) most = std::max(most, t.blocks.size());
    for (std::size_t b = 0; b < most; ++b)
        for (const auto& t : probe) {
            const std::pair key{t.node_guid, t.port};
            if (b >= t.blocks.size() || confirmed_.count(key)) continue;
            const auto id = f.find_node(t.node_guid);
            if (!id) continue;
            // Programmed before, by this SM's last process or another SM: a
            // CA port ARMED or ACTIVE; a switch some SM gave a LinearFDBTop,
            // its port 0 and its ARMED or ACTIVE ports facing CAs. Ports
            // fresh from link-up are written without reading, as the VL
            // tables are.
            const auto pi = found.port_info.find(topology::PortRef{*id, PortNum(t.port)});
            bool programmed = pi != found.port_info.end() && (pi->second.port_state == mad::PortState::armed ||
                                                              pi->second.port_state == mad::PortState::active);
            if (t.switch_node) {
                const auto si = found.switch_info.find(*id);
                programmed = (programmed || t.port == 0) && si != found.switch_info.end() &&
                             si->second.linear_fdb_top != 0;
            }
            if (!programmed || book_.knows(t.node_guid, t.port)) continue;
            auto& slot = out[key];
            slot.blocks.resize(t.blocks.size());
            // A switch's external port gets the CA's keys packed: nothing to learn.
            slot.learn = !t.switch_node || t.port == 0;
            reads.emplace_back(&t, b);
        }
    co_await send_batch(
        transport, reads.size(),
        [&](std::size_t i, mad::SmpRequest& req) {
            const auto [t, b] = reads[i];
            const auto mod = mad::pkey_attr_mod(static_cast<std::uint16_t>(b), t->switch_node ? t->port : 0);
            req.smp = mad::make_dr_request(mad::Method::get, t->path, mad::attr_pkey_table, mod, 0);
        },
        [&](std::size_t i, const mad::SmpResponse& r) {
            const auto [t, b] = reads[i];
            ++report.blocks_read;
            if (!r.ok()) return; // unknown: it will be sent
            if (auto got = mad::decode_pkey_table(r.smp.data())) out[{t->node_guid, t->port}].blocks[b] = *got;
        });
    co_return out;
}

std::string overflow_text(const PKeyTarget& t)
{
    std::string keys;
    for (std::size_t i = 0; i < t.dropped_keys.size() && i < 4; ++i)
        keys += (i ? ", " : "") + hex16(t.dropped_keys[i]);
    if (t.dropped_keys.size() > 4) keys += " and " + std::to_string(t.dropped_keys.size() - 4) + " more";
    const auto counts = "needs " + std::to_string(t.needed) + " P_Key(s), ";
    if (!t.faces.empty())
        return t.name + " (facing " + t.faces + ") " + counts + "its partition enforcement table holds " +
               std::to_string(t.capacity) + " (SwitchInfo PartitionEnforcementCap): partition enforcement is off on "
               "this port, so the CA's traffic is not filtered there (and none of it dropped); " + keys +
               " left out of the switch's copy. To enforce there, put that CA port in at most " +
               std::to_string(t.capacity) + " partitions; part_enforce: off stops enforcing on every port";
    return t.name + " " + counts + "its table holds " + std::to_string(t.capacity) + " (NodeInfo PartitionCap): " +
           keys + " not in its table (keys it held before keep their index), so the port cannot use " +
           (t.dropped_keys.size() == 1 ? "that partition" : "those partitions") +
           ". Take the port out of partitions it does not need (an ALL, ALL_CAS or ALL_SWITCHES member puts every "
           "such port in)";
}

std::set<std::pair<Guid, std::uint8_t>> PKeyProgrammer::unenforced(const DiscoveryResult& found,
                                                                   const partition::Partitions& partitions)
{
    book_.set_allow_both(partitions.settings().allow_both_pkeys);
    std::set<std::pair<Guid, std::uint8_t>> out;
    laid_.reset();
    if (!any_new(found)) {
        // No first contact to read: this layout is program()'s.
        laid_ = Laid{&found, &partitions, pkey_targets(found, partitions, book_, settings_.peer_tables)};
        for (const auto& t : laid_->targets)
            if (!t.faces.empty() && t.dropped) out.insert({t.node_guid, t.port});
        return out;
    }
    if (!settings_.peer_tables) return out;
    // On a scratch book: placing keys in book_ here would make the first
    // contact's reads (read_first_contact) take every port as known and
    // send its blocks blind.
    auto scratch = book_;
    for (const auto& t : pkey_targets(found, partitions, scratch, true))
        if (!t.faces.empty() && t.dropped) out.insert({t.node_guid, t.port});
    return out;
}

void PKeyProgrammer::forget(const std::set<std::pair<Guid, std::uint8_t>>& ports)
{
    // The table is unknown again; where each key goes is not: a port that
    // came back gets its keys at the indexes its interfaces knew.
    for (const auto& p : ports) confirmed_.erase(p);
}

boost::asio::awaitable<PKeyReport> PKeyProgrammer::program(mad::Transport& transport, const DiscoveryResult& found,
                                                           const partition::Partitions& partitions)
{
    PKeyReport report;
    book_.set_allow_both(partitions.settings().allow_both_pkeys);
    auto first = co_await read_first_contact(transport, found, partitions, report);
    for (auto& [port, blocks] : first)
        if (blocks.learn) {
            std::vector<std::uint16_t> entries;
            for (const auto& b : blocks.blocks) {
                if (!b) break; // an unread block ends what is known
                entries.insert(entries.end(), b->keys.begin(), b->keys.end());
            }
            book_.learn(port.first, port.second, entries);
        }
    std::vector<PKeyTarget> targets;
    if (laid_for(found, partitions))
        targets = std::move(laid_->targets); // no first contact: nothing read changes the layout
    else
        targets = pkey_targets(found, partitions, book_, settings_.peer_tables);
    laid_.reset();
    for (auto& [port, blocks] : first) confirmed_[port] = std::move(blocks.blocks);
    report.ports = targets.size();
    for (auto& t : targets) {
        report.blocks_desired += t.blocks.size();
        if (t.dropped) {
            report.keys_dropped += t.dropped;
            keep_failure(report.failures, overflow_text(t));
        }
        auto& c = confirmed_[{t.node_guid, t.port}];
        // Blocks written before and no longer needed are written empty.
        if (c.size() > t.blocks.size()) t.blocks.resize(c.size());
        c.resize(t.blocks.size());
    }
    for (unsigned round = 0; round < std::max(1u, settings_.rounds); ++round) {
        std::vector<std::pair<const PKeyTarget*, std::size_t>> work;
        for (const auto& t : targets) {
            const auto& c = confirmed_[{t.node_guid, t.port}];
            for (std::size_t b = 0; b < t.blocks.size(); ++b)
                if (c[b] != t.blocks[b]) work.emplace_back(&t, b);
        }
        if (work.empty()) break;
        // One batch per round (core/smp_batch.h), as the LFT blocks go.
        co_await send_batch(
            transport, work.size(),
            [&](std::size_t i, mad::SmpRequest& req) {
                const auto [t, b] = work[i];
                SmpData data{};
                mad::encode(t->blocks[b], std::span<std::uint8_t, 64>(data));
                const auto mod = mad::pkey_attr_mod(static_cast<std::uint16_t>(b), t->switch_node ? t->port : 0);
                req.smp = mad::make_dr_request(mad::Method::set, t->path, mad::attr_pkey_table, mod, 0, data);
            },
            [&](std::size_t i, const mad::SmpResponse& r) {
                const auto [t, b] = work[i];
                ++report.blocks_sent;
                auto& slot = confirmed_[{t->node_guid, t->port}][b];
                if (!r.ok()) {
                    keep_failure(report.failures,
                                 t->name + " block " + std::to_string(b) + ": P_KeyTable Set " + failure_text(r));
                    return;
                }
                auto got = mad::decode_pkey_table(r.smp.data());
                if (got && *got == t->blocks[b]) {
                    slot = *got;
                } else {
                    slot.reset();
                    keep_failure(report.failures, t->name + " block " + std::to_string(b) +
                                                      ": P_KeyTable Set answered with other content");
                }
            });
    }
    auto held = std::make_shared<PKeyTablesHeld>();
    for (const auto& t : targets) {
        const auto& c = confirmed_[{t.node_guid, t.port}];
        for (std::size_t b = 0; b < t.blocks.size(); ++b)
            if (c[b] != t.blocks[b]) ++report.blocks_dirty;
        held->emplace(std::make_pair(t.node_guid, t.port), t.blocks);
    }
    held_ = std::move(held);
    co_return report;
}

} // namespace ibsm::daemon
