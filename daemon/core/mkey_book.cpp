#include "daemon/core/mkey_book.h"

#include "mad/node_info.h"
#include "mad/port_info.h"

#include <algorithm>

namespace ibsm::daemon {

namespace {

std::string path_key(const mad::Smp& smp)
{
    std::string k(1, static_cast<char>(smp.hop_count()));
    for (std::size_t i = 1; i <= smp.hop_count() && i < 64; ++i) k += static_cast<char>(smp.initial_path(i));
    return k;
}

std::string path_key(const DrPath& p)
{
    std::string k(1, static_cast<char>(p.hops()));
    for (std::size_t i = 0; i < p.hops(); ++i) k += static_cast<char>(p[i]);
    return k;
}

std::string where_text(const mad::Smp& smp, Lid dlid)
{
    if (!smp.directed_route()) return "LID " + std::to_string(dlid.value());
    std::string s = "DR path 0";
    for (std::size_t i = 1; i <= smp.hop_count() && i < 64; ++i) s += "," + std::to_string(smp.initial_path(i));
    return s;
}

const char* attr_text(std::uint16_t a)
{
    switch (a) {
    case mad::attr::node_info: return "NodeInfo";
    case mad::attr::node_description: return "NodeDescription";
    case mad::attr::port_info: return "PortInfo";
    case mad::attr::switch_info: return "SwitchInfo";
    case mad::attr::linear_forwarding_table: return "LinearForwardingTable";
    case mad::attr::sl2vl_table: return "SLtoVLMappingTable";
    case mad::attr::vl_arbitration: return "VLArbitrationTable";
    case mad::attr::sm_info: return "SMInfo";
    default: return "attribute";
    }
}

} // namespace

void MkeyBook::set_settings(MkeySettings s)
{
    // A rotation over a rotation keeps the oldest ring: ports the first one
    // did not reach still hold its keys (the held key covers the rest).
    if (s != settings_ && settings_.enabled) {
        if (!previous_) previous_ = settings_.ring;
        ++counters_.rotations_started;
    }
    settings_ = std::move(s);
}

std::size_t MkeyBook::stale() const
{
    std::size_t n = 0;
    for (const auto& [g, k] : held_)
        if (present_.count(Guid{g}) && k != desired(Guid{g})) ++n;
    return n;
}

std::size_t MkeyBook::settle()
{
    const std::size_t n = stale();
    if (n == 0 && previous_) {
        previous_.reset();
        ++counters_.rotations_completed;
    }
    return n;
}

MkeyView MkeyBook::view(Guid port_guid) const
{
    return MkeyView{held(port_guid), desired(port_guid), present_.count(port_guid) > 0};
}

std::uint64_t MkeyBook::desired(Guid port_guid) const
{
    return settings_.enabled ? settings_.ring.key_of(port_guid) : 0;
}

std::optional<std::uint64_t> MkeyBook::held(Guid port_guid) const
{
    auto it = held_.find(port_guid.value());
    if (it == held_.end()) return std::nullopt;
    return it->second;
}

void MkeyBook::learn(const DiscoveryResult& found)
{
    const auto& f = found.fabric;
    present_.clear();
    for (std::size_t i = 0; i < found.paths.size() && i < f.node_count(); ++i) {
        const topology::NodeId id{static_cast<std::uint32_t>(i)};
        const auto& node = f.node(id);
        if (node.is_switch()) {
            targets_[path_key(found.path_to(id))] = Target{node.guid, true, 0};
            present_.insert(node.guid);
            continue;
        }
        for (const auto& port : node.ports) {
            const topology::PortRef ref{id, port.num};
            if (port.guid.is_zero() || found.port_info.count(ref) == 0) continue;
            targets_[path_key(path_to_port(found, ref))] = Target{port.guid, false, port.num.value()};
            present_.insert(port.guid);
        }
    }
}

std::optional<MkeyBook::Target> MkeyBook::target(const mad::Smp& smp, Lid dlid) const
{
    if (smp.directed_route()) {
        auto it = targets_.find(path_key(smp));
        if (it == targets_.end()) return std::nullopt;
        return it->second;
    }
    auto it = by_lid_.find(dlid.value());
    if (it == by_lid_.end()) return std::nullopt;
    return it->second;
}

std::vector<std::uint64_t> MkeyBook::candidates(Guid g) const
{
    std::vector<std::uint64_t> c;
    auto add = [&](std::uint64_t k) {
        if (k != 0 && std::find(c.begin(), c.end(), k) == c.end()) c.push_back(k);
    };
    if (auto h = held(g)) add(*h);
    add(desired(g));
    if (previous_) add(previous_->key_of(g));
    if (c.empty()) c.push_back(0);
    return c;
}

std::uint64_t MkeyBook::key_for(const mad::Smp& smp, Lid dlid, unsigned attempt)
{
    if (keyless()) return 0;
    const auto t = target(smp, dlid);
    if (!t) return 0;
    const auto c = candidates(t->guid);
    if (attempt > 1 && c.size() > 1) ++counters_.retried_with_other_key;
    return c[(attempt == 0 ? 0 : attempt - 1) % c.size()];
}

void MkeyBook::hold(Guid g, std::uint64_t key)
{
    auto [it, fresh] = held_.try_emplace(g.value(), key);
    if (fresh || it->second != key) ++counters_.keys_learned;
    if (!fresh && it->second != 0) --keyed_ports_;
    if (key != 0) ++keyed_ports_;
    it->second = key;
}

void MkeyBook::completed(const mad::SmpRequest& sent, const mad::SmpResponse& response)
{
    const auto& smp = sent.smp;
    const bool is_set = smp.method() == static_cast<std::uint8_t>(mad::Method::set);
    if (response.failure == mad::SmpFailure::timeout) {
        if (keyless()) return; // no port holds or should hold a key: a plain loss
        const auto t = target(smp, sent.dlid);
        // Unanswered under the key of a port that checks one: the port may
        // hold a key the SM does not know. Gets pass any key at levels 0
        // and 1, so only a Set (or any SMP when the SM asks for level 2+)
        // says so; a plain loss is the transport's to report.
        const bool keyed = t && (held(t->guid).value_or(0) != 0 || desired(t->guid) != 0);
        if (keyed && (is_set || settings_.protect_bits >= 2) && smp.attr_id() != mad::attr::sm_info) {
            ++counters_.unanswered;
            if (incident_)
                incident_(MkeyIncident{t->guid, t->is_switch, where_text(smp, sent.dlid),
                                       std::string(attr_text(smp.attr_id())) + (is_set ? " Set" : " Get")});
        }
        return;
    }
    if (!response.ok()) return;
    // Keyless, an LFT block Set (three quarters of a bring-up's SMPs)
    // teaches nothing the switch's own SwitchInfo and PortInfo SMPs do not:
    // it carried key 0, and no port holds another.
    if (keyless() && is_set && smp.attr_id() == mad::attr::linear_forwarding_table && smp.mkey() == 0) return;
    const auto& r = response.smp;
    if (smp.attr_id() == mad::attr::node_info && smp.directed_route()) {
        if (auto ni = mad::decode_node_info(r.data())) {
            const bool sw = ni->node_type == mad::NodeKind::switch_node;
            targets_[path_key(smp)] = Target{ni->port_guid, sw, sw ? std::uint8_t{0} : ni->local_port_num.value()};
        }
    }
    const auto t = target(smp, sent.dlid);
    if (!t) return;
    if (smp.attr_id() == mad::attr::port_info) {
        // A switch keeps its M_Key, LID and the rest on port 0 only.
        const auto port = static_cast<std::uint8_t>(smp.attr_mod() & 0xff);
        const bool checking_port = t->is_switch ? port == 0 : (port == 0 || port == t->port);
        if (auto pi = mad::decode_port_info(r.data()); pi && checking_port) {
            if (pi->lid.valid_unicast()) by_lid_[pi->lid.value()] = *t;
            // An answered Set passed the check and wrote the M_Key it
            // carried: the port holds that one, whatever its answer shows
            // (ibsim answers 0, storing no M_Key).
            if (is_set) {
                if (auto written = mad::decode_port_info(smp.data())) {
                    hold(t->guid, written->mkey);
                    return;
                }
            }
            // A Get showing 0 shows either no key or (level 1) a Get without
            // the right one: it proves nothing.
            if (pi->mkey != 0) {
                hold(t->guid, pi->mkey);
                return;
            }
        }
    }
    // A Set is always checked: the key it carried is the one the port holds.
    if (is_set) hold(t->guid, smp.mkey());
}

} // namespace ibsm::daemon
