#include "daemon/sweep/discovery.h"
#include "daemon/core/node_names.h"

#include "mad/link_speed.h"
#include "mad/node_description.h"
#include "mad/node_info.h"
#include "mad/port_info.h"
#include "mad/switch_info.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <exception>
#include <set>
#include <stdexcept>

namespace ibsm::daemon {
namespace {

using boost::asio::awaitable;
using boost::asio::use_awaitable;
using topology::NodeId;
using topology::PortRef;

topology::NodeType to_node_type(mad::NodeKind k)
{
    switch (k) {
    case mad::NodeKind::ca: return topology::NodeType::ca;
    case mad::NodeKind::switch_node: return topology::NodeType::switch_node;
    case mad::NodeKind::router: return topology::NodeType::router;
    }
    return topology::NodeType::ca;
}

// A port carries a link when its state is INIT or beyond and its physical
// state, where the SMA states one, is LinkUp or after: a port the SM set
// Disabled (health.disable_port) or Polling passes no packet even where a
// simulator leaves its logical state as it was (ibsim does).
bool link_is_up(const mad::PortInfo& pi)
{
    const auto s = pi.port_state;
    const bool logical = s == mad::PortState::init || s == mad::PortState::armed || s == mad::PortState::active;
    return logical && (pi.port_phys_state == 0 || pi.port_phys_state >= 5);
}

class Sweep {
public:
    explicit Sweep(mad::Transport& transport) : transport_(transport) {}
    // Refresh mode: starts from what an earlier sweep found.
    Sweep(mad::Transport& transport, DiscoveryResult previous)
        : transport_(transport), result_(std::move(previous)), sm_port_known_(true), refreshing_(true)
    {
        result_.missing.clear();
        result_.duplicates.clear();
    }

    awaitable<FabricChanges> run_refresh(const RefreshRequest& req)
    {
        executor_ = co_await boost::asio::this_coro::executor;
        boost::asio::steady_timer done(executor_, boost::asio::steady_timer::time_point::max());
        done_ = &done;
        width_ = std::max<std::size_t>(16, 2 * std::size_t{transport_.options().window});
        const auto& f = result_.fabric;
        for (auto id : req.switches) {
            enqueue(Task{Task::Kind::switch_info, result_.path_to(id), std::nullopt, id, {}, false});
            for (unsigned p = 1; p <= f.node(id).num_ports(); ++p)
                enqueue(Task{Task::Kind::port_info, result_.path_to(id), std::nullopt, id,
                             PortNum(static_cast<std::uint8_t>(p)), true});
        }
        for (auto ref : req.ports)
            enqueue(Task{Task::Kind::port_info, path_to_port(result_, ref), std::nullopt, ref.node, ref.port, false});
        for (auto id : req.describe) enqueue(Task{Task::Kind::describe, result_.path_to(id), std::nullopt, id, {}, false});
        if (workers_ > 0) {
            boost::system::error_code ec;
            co_await done.async_wait(boost::asio::redirect_error(use_awaitable, ec));
        }
        done_ = nullptr;
        if (failure_) std::rethrow_exception(failure_);
        co_return std::move(changes_);
    }

    DiscoveryResult take() { return std::move(result_); }
    // Switches whose ports are not followed (the health policy's
    // no_discover): read, linked from their neighbours, never gone beyond.
    void stop_at(std::set<Guid> nodes) { stop_at_ = std::move(nodes); }
    // Nodes a describe/SwitchInfo/PortInfo query failed for, and how many
    // failures were of other queries (NodeInfo of what is behind a port).
    const std::set<NodeId>& failed_nodes() const { return failed_nodes_; }
    // Switches at the far end of links this refresh found down.
    const std::set<NodeId>& far_ends() const { return far_ends_; }
    std::size_t failures() const { return result_.missing.size(); }

    awaitable<DiscoveryResult> run()
    {
        auto start = std::chrono::steady_clock::now();
        auto before = transport_.counters().requests;
        executor_ = co_await boost::asio::this_coro::executor;
        boost::asio::steady_timer done(executor_, boost::asio::steady_timer::time_point::max());
        done_ = &done;
        // Enough workers to keep the transport's window full while some of
        // them are between SMPs (decoding, queueing the next tasks).
        width_ = std::max<std::size_t>(16, 2 * std::size_t{transport_.options().window});

        enqueue(Task{Task::Kind::visit, DrPath{}, std::nullopt, {}, {}, false});
        if (workers_ > 0) {
            boost::system::error_code ec;
            co_await done.async_wait(boost::asio::redirect_error(use_awaitable, ec));
        }
        done_ = nullptr;
        if (failure_) std::rethrow_exception(failure_);
        if (!sm_port_known_)
            throw std::runtime_error("the SM's own port did not answer NodeInfo: " +
                                     (result_.missing.empty() ? std::string("no answer") : result_.missing.front().why));

        result_.smps = transport_.counters().requests - before;
        result_.elapsed = std::chrono::steady_clock::now() - start;
        co_return std::move(result_);
    }

private:
    // A query still to make. Kept as this small value, not as a coroutine:
    // a coroutine frame is allocated when the coroutine is called, and the
    // whole frontier of a large fabric (tens of thousands of PortInfo Gets)
    // as frames cost more in malloc and page faults than the SMPs did.
    struct Task {
        enum class Kind : std::uint8_t { visit, describe, switch_info, port_info } kind;
        DrPath path;
        std::optional<PortRef> from; // visit: the port we came through
        NodeId id{};                 // describe, switch_info, port_info
        PortNum port{};              // port_info
        bool follow = false;         // port_info: visit what is behind the port
    };

    void enqueue(Task t)
    {
        tasks_.push_back(std::move(t));
        if (workers_ >= width_) return;
        ++workers_;
        boost::asio::co_spawn(executor_, work(), [this](std::exception_ptr e) {
            // A bug, not a fabric problem: keep the first, finish the sweep.
            if (e && !failure_) failure_ = e;
            if (--workers_ == 0 && done_) done_->cancel();
        });
    }

    // Takes tasks in FIFO order (breadth first) until none is left; the
    // last worker to stop ends the sweep.
    awaitable<void> work()
    {
        while (!tasks_.empty()) {
            Task t = std::move(tasks_.front());
            tasks_.pop_front();
            switch (t.kind) {
            case Task::Kind::visit: co_await visit(t.path, t.from); break;
            case Task::Kind::describe: co_await describe(t.id, t.path); break;
            case Task::Kind::switch_info: co_await switch_info(t.id, t.path); break;
            case Task::Kind::port_info: co_await port_info(t.id, t.path, t.port, t.follow); break;
            }
        }
    }

    std::string where(const std::optional<PortRef>& from) const
    {
        if (!from) return "the SM's own node";
        return "behind " + port_name(result_.fabric, *from);
    }

    // One Get; on failure records what is missing and returns nullopt.
    // `what()` names the query for that record: it is called only on
    // failure, so tens of thousands of answered queries build no text.
    template <class What>
    awaitable<std::optional<mad::Smp>> get(const DrPath& path, std::uint16_t attr, std::uint32_t mod, What what)
    {
        mad::SmpRequest req{mad::make_dr_request(mad::Method::get, path, attr, mod, 0), Lid{}};
        auto r = co_await transport_.async_request(std::move(req), use_awaitable);
        if (r.ok()) co_return r.smp;
        std::string why = r.failure == mad::SmpFailure::bad_status ? "bad status " + hex16(r.status)
                                                                     : mad::to_string(r.failure);
        result_.missing.push_back(MissingItem{path, what(), std::move(why)});
        co_return std::nullopt;
    }

    void record_duplicate(Guid guid, NodeId existing, const DrPath& second, std::string detail)
    {
        result_.duplicates.push_back(DuplicateGuid{guid, result_.paths.at(existing.value), second, std::move(detail)});
    }

    // Cables a<->b unless one end already leads elsewhere, which only a
    // duplicate GUID (or a fabric changing under the sweep) can cause.
    bool link(PortRef a, PortRef b, Guid guid_b, const DrPath& path_b)
    {
        auto& f = result_.fabric;
        auto ra = f.remote(a);
        auto rb = f.remote(b);
        if (a == b) {
            // A port reached through itself: the node behind it answers
            // with the GUID of the node we left from.
            record_duplicate(guid_b, b.node, path_b,
                             "the node " + where(a) + " answers with the GUID of the node it is cabled to");
            return false;
        }
        if ((ra && *ra != b) || (rb && *rb != a)) {
            record_duplicate(guid_b, b.node, path_b,
                             "port " + std::to_string(b.port.value()) + " of " + guid_b.str() +
                                 " is reached from " + where(a) + " but is already cabled elsewhere");
            return false;
        }
        f.connect(a, b);
        return true;
    }

    awaitable<void> visit(const DrPath& path, std::optional<PortRef> from)
    {
        auto ni = co_await read_node_info(path, from);
        if (!ni) co_return;
        if (auto existing = result_.fabric.find_node(ni->node_guid))
            reached_again(*existing, *ni, path, from);
        else
            add_node(*ni, path, from);
    }

    // The NodeInfo at `path`, or nullopt (recorded as missing) when it is
    // unanswered, malformed or names a LocalPortNum the node cannot have.
    awaitable<std::optional<mad::NodeInfo>> read_node_info(const DrPath& path, const std::optional<PortRef>& from)
    {
        const auto what = [&] { return "NodeInfo (" + where(from) + ")"; };
        auto r = co_await get(path, mad::attr::node_info, 0, what);
        if (!r) co_return std::nullopt;
        auto ni = mad::decode_node_info(r->data());
        if (!ni) {
            result_.missing.push_back(MissingItem{path, what(), "malformed answer"});
            co_return std::nullopt;
        }
        const PortNum in = ni->local_port_num;
        const bool switch_node = to_node_type(ni->node_type) == topology::NodeType::switch_node;
        if (in.value() > ni->num_ports || (!switch_node && in.value() == 0)) {
            result_.missing.push_back(MissingItem{path, what(),
                                                  "LocalPortNum " + std::to_string(in.value()) + " out of range"});
            co_return std::nullopt;
        }
        co_return ni;
    }

    // A node already known, met again at `path`: another path to it, one
    // end of a link that came up (refresh), or a CA port not seen before.
    void reached_again(NodeId id, const mad::NodeInfo& ni, const DrPath& path, const std::optional<PortRef>& from)
    {
        auto& f = result_.fabric;
        auto& n = f.node(id);
        const auto type = to_node_type(ni.node_type);
        if (n.type != type || n.num_ports() != ni.num_ports) {
            record_duplicate(ni.node_guid, id, path,
                             std::string("a ") + topology::to_string(type) + " with " + std::to_string(ni.num_ports) +
                                 " ports answers " + where(from) + " with the GUID of a " +
                                 topology::to_string(n.type) + " with " + std::to_string(n.num_ports()) + " ports");
            return;
        }
        const PortNum in = ni.local_port_num;
        PortRef here{id, in};
        // Both ends of a cable that came up may be re-read at once: the
        // second to get here finds the link made.
        const bool known_link = from && f.remote(*from) == here;
        if (from && !known_link && !link(*from, here, ni.node_guid, path)) return;
        if (refreshing_ && from && !known_link) {
            ++changes_.links_up;
            changes_.text.push_back("link up: " + port_name(f, *from) + " - " + port_name(f, here));
            for (auto end : {*from, here}) changes_.ports_up.push_back({f.node(end.node).guid, end.port});
            // Its state in the snapshot is from before the link came up.
            if (n.is_switch()) enqueue(Task{Task::Kind::port_info, path, std::nullopt, id, in, false});
        }
        if (!n.is_switch() && !n.port(in).known) {
            if (!set_port_guid(here, ni.port_guid, path)) return;
            enqueue(Task{Task::Kind::port_info, path, std::nullopt, id, in, false});
        }
    }

    // A node not seen before: added, cabled to the port we came through
    // (or taken as the SM's own), and its description and ports queued.
    void add_node(const mad::NodeInfo& ni, const DrPath& path, const std::optional<PortRef>& from)
    {
        auto& f = result_.fabric;
        const auto type = to_node_type(ni.node_type);
        NodeId id = f.add_node(type, ni.node_guid, ni.num_ports);
        auto& n = f.node(id);
        n.system_guid = ni.system_image_guid;
        n.vendor_id = ni.vendor_id;
        n.device_id = ni.device_id;
        n.revision = ni.revision;
        n.partition_cap = ni.partition_cap;
        result_.paths.resize(f.node_count());
        result_.paths[id.value] = path;
        const PortNum in = ni.local_port_num;
        PortRef here{id, in};
        if (type != topology::NodeType::switch_node && !set_port_guid(here, ni.port_guid, path)) return;
        if (refreshing_) {
            ++changes_.nodes_new;
            changes_.text.push_back(std::string("new ") + topology::to_string(type) + " " + ni.node_guid.str() + " " +
                                    where(from));
        }
        if (from) {
            link(*from, here, ni.node_guid, path);
        } else {
            result_.sm_port = here;
            sm_port_known_ = true;
        }

        enqueue(Task{Task::Kind::describe, path, std::nullopt, id, {}, false});
        if (type == topology::NodeType::switch_node) {
            enqueue(Task{Task::Kind::switch_info, path, std::nullopt, id, {}, false});
            for (unsigned p = 0; p <= ni.num_ports; ++p) {
                PortNum pn(static_cast<std::uint8_t>(p));
                enqueue(Task{Task::Kind::port_info, path, std::nullopt, id, pn, p != 0 && !(from && pn == in)});
            }
        } else {
            // A CA is only asked about the port we reached; the SM's own CA
            // is where the sweep leaves for the fabric.
            enqueue(Task{Task::Kind::port_info, path, std::nullopt, id, in, !from});
        }
    }

    bool set_port_guid(PortRef p, Guid guid, const DrPath& path)
    {
        try {
            result_.fabric.set_port_guid(p, guid);
            return true;
        } catch (const std::invalid_argument&) {
            auto other = result_.fabric.find_port(guid);
            record_duplicate(guid, other ? other->node : p.node, path,
                             "port GUID " + guid.str() + " answers on two different ports");
            return false;
        }
    }

    awaitable<void> describe(NodeId id, const DrPath& path)
    {
        auto r = co_await get(path, mad::attr::node_description, 0, [] { return std::string("NodeDescription"); });
        if (!r) {
            failed_nodes_.insert(id);
            co_return;
        }
        if (auto nd = mad::decode_node_description(r->data())) result_.fabric.node(id).description = nd->text;
    }

    awaitable<void> switch_info(NodeId id, const DrPath& path)
    {
        auto r = co_await get(path, mad::attr::switch_info, 0, [] { return std::string("SwitchInfo"); });
        if (!r) {
            failed_nodes_.insert(id);
            co_return;
        }
        auto si = mad::decode_switch_info(r->data());
        if (!si) {
            result_.missing.push_back(MissingItem{path, "SwitchInfo", "malformed answer"});
            co_return;
        }
        if (refreshing_ && si->port_state_change) {
            // Cleared by writing 1 (IBA 14.2.5.4), before the ports are read:
            // a change after this point sets it again for the next light sweep.
            mad::SmpRequest req{mad::make_dr_request(mad::Method::set, path, mad::attr::switch_info, 0, 0), Lid{}};
            mad::encode(*si, req.smp.data());
            auto w = co_await transport_.async_request(std::move(req), use_awaitable);
            if (!w.ok())
                result_.missing.push_back(MissingItem{path, "SwitchInfo Set (PortStateChange)", mad::to_string(w.failure)});
            si->port_state_change = false;
        }
        result_.switch_info[id] = *si;
        auto& sw = *result_.fabric.node(id).sw;
        sw.linear_fdb_cap = si->linear_fdb_cap;
        sw.linear_fdb_top = si->linear_fdb_top;
        sw.life_time_value = si->life_time_value;
        sw.enhanced_port0 = si->enhanced_port0;
    }

    // The Get of one port's PortInfo, with SMSupportExtendedSpeeds
    // (port_info_attr_mod). A node that answers it with a bad status is an
    // older device that takes bit 31 for part of the port number: it is
    // asked again without the bit, and remembered so it is never asked with
    // it again.
    // Unanswered: the node is noted as failed; malformed: missing only.
    awaitable<std::optional<mad::PortInfo>> read_port_info(NodeId id, const DrPath& path, PortNum pn)
    {
        const auto what = [pn] { return "PortInfo port " + std::to_string(pn.value()); };
        const std::uint32_t mod = port_info_attr_mod(result_, PortRef{id, pn});
        std::optional<mad::Smp> answer;
        if (mod & mad::attr_mod_sm_supports_extended_speeds) {
            mad::SmpRequest req{mad::make_dr_request(mad::Method::get, path, mad::attr::port_info, mod, 0), Lid{}};
            auto r = co_await transport_.async_request(std::move(req), use_awaitable);
            if (r.ok()) {
                answer = r.smp;
            } else if (r.failure == mad::SmpFailure::bad_status) {
                result_.plain_port_info.insert(result_.fabric.node(id).guid);
            } else {
                result_.missing.push_back(MissingItem{path, what(), mad::to_string(r.failure)});
                failed_nodes_.insert(id);
                co_return std::nullopt;
            }
        }
        if (!answer) answer = co_await get(path, mad::attr::port_info, pn.value(), what);
        if (!answer) {
            failed_nodes_.insert(id);
            co_return std::nullopt;
        }
        auto pi = mad::decode_port_info(answer->data());
        if (!pi) result_.missing.push_back(MissingItem{path, what(), "malformed answer"});
        co_return pi;
    }

    awaitable<void> port_info(NodeId id, const DrPath& path, PortNum pn, bool follow)
    {
        auto pi = co_await read_port_info(id, path, pn);
        if (!pi) co_return;
        const PortRef here{id, pn};
        if (refreshing_) note_port_change(here, *pi);
        result_.port_info[here] = *pi;
        auto& port = result_.fabric.node(id).port(pn);
        port.known = true;
        port.lid = pi->lid;
        port.lmc = pi->lmc;
        port.state = static_cast<topology::PortState>(pi->port_state);
        port.phys_state = pi->port_phys_state;
        port.link_width_active = pi->link_width_active;
        port.link_speed_active = pi->link_speed_active;
        port.link_speed_ext_active = pi->link_speed_ext_active;
        port.link_speed_ext_active2 = pi->link_speed_ext_active2;
        port.vl_cap = pi->vl_cap;
        port.mtu_cap = pi->mtu_cap;
        port.capability_mask = pi->capability_mask;

        if (!follow || !link_is_up(*pi) || result_.fabric.remote(here)) co_return;
        if (!stop_at_.empty() && id != result_.sm_port.node && stop_at_.count(result_.fabric.node(id).guid)) co_return;
        if (path.full()) {
            result_.missing.push_back(MissingItem{path, "NodeInfo (" + where(here) + ")", "DR path longer than 63 hops"});
            co_return;
        }
        enqueue(Task{Task::Kind::visit, path.extended(pn), here, {}, {}, false});
    }

    // Refresh: a port that went down loses its link; other differences in
    // what the SM configures count as a changed port.
    void note_port_change(PortRef here, const mad::PortInfo& now)
    {
        auto& f = result_.fabric;
        if (!link_is_up(now)) {
            if (auto r = f.remote(here)) {
                ++changes_.links_down;
                changes_.text.push_back("link down: " + port_name(f, here) + " - " + port_name(f, *r));
                for (auto end : {here, *r}) changes_.ports_down.push_back({f.node(end.node).guid, end.port});
                if (f.node(r->node).is_switch()) far_ends_.insert(r->node);
                f.disconnect(here);
            }
            return;
        }
        auto old = result_.port_info.find(here);
        if (old == result_.port_info.end() || old->second.port_state != now.port_state || old->second.lid != now.lid ||
            old->second.lmc != now.lmc || old->second.capability_mask != now.capability_mask) {
            ++changes_.ports_changed;
            changes_.text.push_back("port changed: " + port_name(f, here) + " state " +
                                    std::to_string(static_cast<int>(now.port_state)) + " LID " +
                                    std::to_string(now.lid.value()));
        }
    }

    mad::Transport& transport_;
    DiscoveryResult result_;
    FabricChanges changes_;
    std::set<NodeId> failed_nodes_;
    std::set<NodeId> far_ends_;
    std::set<Guid> stop_at_;
    bool sm_port_known_ = false;
    bool refreshing_ = false;
    boost::asio::any_io_executor executor_;
    std::deque<Task> tasks_;
    std::size_t width_ = 16;
    std::size_t workers_ = 0;
    boost::asio::steady_timer* done_ = nullptr;
    std::exception_ptr failure_;
};


void add_changes(FabricChanges& changes, const FabricChanges& more)
{
    changes.links_down += more.links_down;
    changes.links_up += more.links_up;
    changes.ports_down.insert(changes.ports_down.end(), more.ports_down.begin(), more.ports_down.end());
    changes.ports_up.insert(changes.ports_up.end(), more.ports_up.begin(), more.ports_up.end());
    changes.nodes_new += more.nodes_new;
    changes.ports_changed += more.ports_changed;
    changes.text.insert(changes.text.end(), more.text.begin(), more.text.end());
}

// One more refresh pass over `found` with DR paths recomputed over the
// links now known up: the nodes named by `guids` that are still reachable
// (the rest are lost: appended to `gone`, nothing to ask). Its changes are
// added to `changes`; the GUIDs of switches at the far end of links it
// found down are added to `far`.
awaitable<void> follow_up(mad::Transport& transport, DiscoveryResult& found, const std::vector<Guid>& guids,
                          std::vector<Guid>& gone, FabricChanges& changes, std::set<Guid>& far)
{
    found.missing.clear();
    DiscoveryResult again = reachable_part(std::move(found), &gone); // `found` is assigned again below
    RefreshRequest retry;
    for (auto g : guids) {
        auto id = again.fabric.find_node(g);
        if (!id) continue;
        if (again.fabric.node(*id).is_switch())
            retry.switches.push_back(*id);
        else
            for (unsigned p = 1; p <= again.fabric.node(*id).num_ports(); ++p)
                if (again.fabric.node(*id).ports[p].remote)
                    retry.ports.push_back(PortRef{*id, PortNum(static_cast<std::uint8_t>(p))});
    }
    Sweep pass(transport, std::move(again));
    add_changes(changes, co_await pass.run_refresh(retry));
    found = pass.take();
    for (auto id : pass.far_ends()) far.insert(found.fabric.node(id).guid);
}

// Before a switch at the far end of a link found down is asked anything:
// the ports that face it on its other switch neighbours (those no pass
// re-read), over DR paths that do not cross it. A switch unlinked whole or
// switched off answers nothing, and its queries would wait out the
// transport's timeout and retries (0.75 s for a top switch of 48 ports at
// 27 648 hosts) and then fail the refresh into a heavy sweep; its
// neighbours answer at once, and when all of them see their link down the
// switch is lost with no query sent to it. Returns the switches of
// `switches` that still have a link after this: those are asked next.
awaitable<std::vector<Guid>> ask_neighbours(mad::Transport& transport, DiscoveryResult& found,
                                           const std::vector<Guid>& switches, const std::set<Guid>& read,
                                           FabricChanges& changes)
{
    const auto& f = found.fabric;
    std::vector<bool> avoid(f.node_count());
    for (auto g : switches)
        if (auto id = f.find_node(g)) avoid[id->value] = true;
    const auto paths = shortest_paths(found, avoid);
    RefreshRequest ask;
    for (auto g : switches) {
        auto id = f.find_node(g);
        if (!id) continue;
        for (unsigned p = 1; p <= f.node(*id).num_ports(); ++p) {
            auto r = f.remote(PortRef{*id, PortNum(static_cast<std::uint8_t>(p))});
            if (!r || !f.node(r->node).is_switch() || avoid[r->node.value] || !paths[r->node.value] ||
                read.count(f.node(r->node).guid))
                continue;
            // A path the final reachable_part recomputes anyway.
            found.paths[r->node.value] = *paths[r->node.value];
            ask.ports.push_back(*r);
        }
    }
    if (!ask.ports.empty()) {
        Sweep pass(transport, std::move(found));
        add_changes(changes, co_await pass.run_refresh(ask));
        found = pass.take();
    }
    std::vector<Guid> linked;
    for (auto g : switches) {
        auto id = found.fabric.find_node(g);
        if (!id) continue;
        const auto& n = found.fabric.node(*id);
        for (unsigned p = 1; p <= n.num_ports(); ++p)
            if (n.ports[p].remote) {
                linked.push_back(g);
                break;
            }
    }
    co_return linked;
}

} // namespace

awaitable<RefreshResult> refresh(mad::Transport& transport, const DiscoveryResult& previous,
                                 const RefreshRequest& request)
{
    Sweep sweep(transport, previous);
    RefreshResult out;
    out.changes = co_await sweep.run_refresh(request);
    DiscoveryResult found = sweep.take();
    std::set<Guid> read; // switches re-read by some pass
    for (auto id : request.switches) read.insert(found.fabric.node(id).guid);
    std::set<Guid> far;
    for (auto id : sweep.far_ends()) far.insert(found.fabric.node(id).guid);
    std::vector<Guid> gone; // lost already when the paths were recomputed
    // A snapshot path can cross the very link that went down (the switch at
    // its far end is then reached another way): retry the nodes whose
    // queries failed once, over paths recomputed without the links found
    // down. Other failures (a new node's NodeInfo) stay for the caller.
    const auto failed = sweep.failed_nodes();
    for (auto id : failed) read.insert(found.fabric.node(id).guid); // retried below, or the caller gives up
    std::size_t node_failures = 0;
    for (const auto& m : found.missing)
        for (auto id : failed)
            if (m.path == found.path_to(id)) ++node_failures;
    if (!failed.empty() && node_failures == found.missing.size() && (out.changes.links_down || out.changes.links_up)) {
        std::vector<Guid> retry_guids;
        for (auto id : failed) retry_guids.push_back(found.fabric.node(id).guid);
        co_await follow_up(transport, found, retry_guids, gone, out.changes, far);
    }
    // A switch at the far end of a link found down that no pass re-read is
    // confirmed too, after the passes above (their findings shape its
    // path): a switch unlinked whole (or switched off) leaves neighbours
    // whose traps cannot reach the SM any more (their way back ran through
    // it), so the snapshot would keep it and route through it. Its other
    // neighbours are asked first (ask_neighbours); when one still sees a
    // link to it, it is asked itself, over the paths recomputed. Not
    // answering then, it lands in `missing` and the caller runs a heavy
    // sweep before anything is programmed. A switch that no neighbour sees
    // any more is just lost.
    std::vector<Guid> unconfirmed;
    for (auto g : far)
        if (!read.count(g)) unconfirmed.push_back(g);
    if (!unconfirmed.empty() && found.missing.empty())
        unconfirmed = co_await ask_neighbours(transport, found, unconfirmed, read, out.changes);
    if (!unconfirmed.empty() && found.missing.empty()) {
        std::set<Guid> ignored;
        co_await follow_up(transport, found, unconfirmed, gone, out.changes, ignored);
    }
    out.changes.lost = std::move(gone);
    out.found = reachable_part(std::move(found), &out.changes.lost);
    for (auto g : out.changes.lost) {
        ++out.changes.nodes_lost;
        out.changes.text.push_back("lost node " + g.str());
    }
    co_return out;
}

awaitable<DiscoveryResult> discover(mad::Transport& transport, std::set<Guid> no_discover)
{
    Sweep sweep(transport);
    sweep.stop_at(std::move(no_discover));
    co_return in_guid_order(co_await sweep.run());
}

} // namespace ibsm::daemon
