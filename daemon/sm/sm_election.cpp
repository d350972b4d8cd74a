#include "daemon/sm/sm_election.h"

#include "daemon/core/work_pool.h"
#include "mad/notice.h"
#include "mad/smp.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

namespace ibsm::daemon {

namespace {

using Clock = std::chrono::steady_clock;

// PortInfo CapabilityMask bit 1: an SM runs behind this port.
constexpr std::uint32_t cap_is_sm = 1u << 1;
// Trap 144 is sent by a CA port (Notice ProducerType: channel adapter).
constexpr std::uint32_t producer_ca = 1;
// SMInfo Gets to other SMs in flight at once during a sweep.
constexpr std::size_t peer_query_width = 8;

} // namespace

SmElection::SmElection(mad::Transport& transport, SmInfoResponder& responder, EventQueue& events,
                       ElectionSettings settings)
    : transport_(transport), responder_(responder), events_(events), settings_(settings),
      timer_(events.executor())
{
    responder_.set_priority(settings_.self.priority);
    responder_.set_sm_key(settings_.self.sm_key);
    responder_.set_state(state_);
}

void SmElection::install()
{
    responder_.set_control_handler([this](std::uint32_t c, const mad::SmInfo& sender) { return control(c, sender); });
}

mad::SmInfo SmElection::own_info() const
{
    mad::SmInfo si;
    si.guid = settings_.self.guid;
    si.sm_key = settings_.self.sm_key;
    si.priority = settings_.self.priority;
    si.sm_state = state_;
    si.act_count = static_cast<std::uint32_t>(transport_.counters().sent);
    return si;
}

void SmElection::enter(mad::SmState next, const std::string& why)
{
    const mad::SmState before = state_;
    if (next != state_)
        spdlog::info("SM state {} -> {}: {}", to_string(state_), to_string(next), why);
    state_ = next;
    responder_.set_state(next);
    if (next != before && state_observer_) state_observer_(before, next, why);
}

std::optional<Guid> SmElection::master() const
{
    if (master_) return master_->info.guid;
    return std::nullopt;
}

void SmElection::set_priority(std::uint8_t priority)
{
    if (priority == settings_.self.priority) return;
    spdlog::info("SM priority {} -> {}", settings_.self.priority, priority);
    settings_.self.priority = priority;
    responder_.set_priority(priority);
}

void SmElection::set_polling(std::chrono::milliseconds interval, unsigned retries)
{
    settings_.polling_interval = interval;
    settings_.polling_retries = retries;
}

boost::asio::awaitable<std::optional<mad::SmInfo>> SmElection::query(const DrPath& path, std::uint32_t control,
                                                                     mad::Method method)
{
    std::array<std::uint8_t, mad::smp_data_size> data{};
    auto mine = own_info();
    // An ACKNOWLEDGE answers a HANDOVER received as STANDBY (IBA 14.4.1):
    // it goes out in the state it was received in.
    if (control == mad::sm_control::acknowledge) mine.sm_state = mad::SmState::standby;
    mad::encode(mine, std::span<std::uint8_t, 64>(data));
    mad::SmpRequest req{mad::make_dr_request(method, path, mad::attr::sm_info, control, 0, data), Lid{}};
    auto r = co_await transport_.async_request(std::move(req), boost::asio::use_awaitable);
    if (!r.ok()) co_return std::nullopt;
    co_return mad::decode_sm_info(r.smp.data());
}

boost::asio::awaitable<std::optional<std::string>> SmElection::after_discovery(const DiscoveryResult& found)
{
    if (state_ == mad::SmState::not_active) co_return "NOT-ACTIVE (disabled by another SM; restart to re-enable)";
    const auto& f = found.fabric;
    if (auto it = found.port_info.find(found.sm_port); it != found.port_info.end()) own_lid_ = it->second.lid;

    // Every other port that says an SM runs behind it.
    struct Target {
        Guid guid;
        DrPath path;
        Lid lid;
    };
    std::vector<Target> targets;
    for (const auto& [ref, pi] : found.port_info) {
        if (!(pi.capability_mask & cap_is_sm) || ref == found.sm_port) continue;
        const auto& node = f.node(ref.node);
        const Guid g = node.is_switch() ? node.guid : f.port(ref).guid;
        if (g == settings_.self.guid || (excluded_ && g == *excluded_)) continue;
        if (node.is_switch() && ref.port.value() != 0) continue;
        targets.push_back({g, found.path_to(ref.node), pi.lid});
    }
    if (excluded_) spdlog::info("SM {} stopped answering its polls: not asked again in this sweep", excluded_->str());
    excluded_.reset();

    std::vector<PeerSm> peers;
    co_await run_jobs(targets, peer_query_width, [&](const Target& t) -> boost::asio::awaitable<void> {
        ++counters_.peer_queries;
        auto si = co_await query(t.path, 0, mad::Method::get);
        if (!si) {
            spdlog::info("port {} has IsSM but its SMInfo did not come back: no SM there now", t.guid.str());
            co_return;
        }
        peers.push_back(PeerSm{*si, t.path, t.lid});
    });
    peers_ = peers;

    auto d = after_sweep(state_, settings_.self, peers);
    for (const auto& why : d.ignored) spdlog::warn("SM election: {}", why);
    switch (d.action) {
    case SweepAction::configure:
        if (!peers.empty() || state_ == mad::SmState::standby) spdlog::info("SM election: configuring ({})", d.reason);
        master_.reset();
        enter(d.next, d.reason);
        co_return std::nullopt;
    case SweepAction::stand_by:
        master_ = d.peer;
        misses_ = 0;
        next_poll_ = Clock::now() + settings_.polling_interval;
        timer_.cancel();
        enter(mad::SmState::standby, d.reason);
        co_return "standing by for master SM " + d.peer->info.guid.str() + ": " + d.reason;
    case SweepAction::hand_over: {
        ++counters_.handovers_sent;
        auto answer = co_await query(d.peer->path, mad::sm_control::handover, mad::Method::set);
        if (!answer) {
            spdlog::warn("HANDOVER to SM {} not accepted: this SM stays master", d.peer->info.guid.str());
            co_return std::nullopt;
        }
        master_ = d.peer;
        misses_ = 0;
        next_poll_ = Clock::now() + settings_.polling_interval;
        timer_.cancel();
        enter(mad::SmState::standby, d.reason);
        co_return "handed the subnet over to SM " + d.peer->info.guid.str() + ": " + d.reason;
    }
    }
    co_return std::nullopt;
}

std::optional<std::string> SmElection::standing_by() const
{
    if (state_ == mad::SmState::not_active) return "NOT-ACTIVE (disabled by another SM)";
    if (state_ == mad::SmState::standby)
        return "standing by for master SM " + (master_ ? master_->info.guid.str() : std::string("?"));
    return std::nullopt;
}

void SmElection::on_subnet_up()
{
    if (state_ == mad::SmState::discovering || state_ == mad::SmState::master) enter(mad::SmState::master, "subnet up");
}

bool SmElection::control(std::uint32_t c, const mad::SmInfo& sender)
{
    auto d = on_control(state_, settings_.self, c, sender);
    switch (d.action) {
    case ControlAction::refuse: spdlog::warn("SM election: {}", d.reason); return false;
    case ControlAction::none: spdlog::info("SM election: {}", d.reason); return true;
    case ControlAction::sweep:
        if (c == mad::sm_control::handover) ++counters_.handovers_received;
        master_.reset();
        enter(d.next, d.reason);
        events_.push(HeavySweepEvent{d.reason});
        if (d.acknowledge)
            boost::asio::co_spawn(timer_.get_executor(), acknowledge(sender.guid), boost::asio::detached);
        return true;
    case ControlAction::stand_by:
        // Polling needs the sender's path: the heavy sweep finds it master.
        enter(mad::SmState::discovering, d.reason);
        events_.push(HeavySweepEvent{d.reason});
        return true;
    case ControlAction::disable:
        master_.reset();
        enter(d.next, d.reason);
        return true;
    }
    return false;
}

boost::asio::awaitable<void> SmElection::acknowledge(Guid to)
{
    for (const auto& p : peers_) {
        if (p.info.guid != to) continue;
        ++counters_.acknowledges_sent;
        auto r = co_await query(p.path, mad::sm_control::acknowledge, mad::Method::set);
        spdlog::info("ACKNOWLEDGE to SM {} {}", to.str(), r ? "accepted" : "not answered");
        co_return;
    }
    spdlog::info("no path to SM {} known: no ACKNOWLEDGE sent (its next poll finds us master)", to.str());
}

void SmElection::send_trap144()
{
    if (!master_ || master_->lid.value() == 0 || own_lid_.value() == 0) return;
    mad::Notice n;
    n.is_generic = true;
    n.type = mad::notice_type::informational;
    n.producer_type_or_vendor_id = producer_ca;
    n.trap_number_or_device_id = 144;
    n.issuer_lid = own_lid_;
    mad::LocalChangesDetails d;
    d.lid = own_lid_;
    d.capability_mask = cap_is_sm;
    d.change_flags = mad::trap144::sm_priority_changed;
    n.details = d;
    std::array<std::uint8_t, mad::smp_data_size> data{};
    mad::encode(n, std::span<std::uint8_t, 64>(data));
    mad::SmpRequest req{mad::make_lid_request(mad::Method::trap, master_->lid, mad::attr::notice, 0, 0, data),
                        master_->lid};
    if (transport_.send_once(std::move(req))) ++counters_.traps_sent;
}

boost::asio::awaitable<void> SmElection::poll_once()
{
    const auto master = *master_;
    ++counters_.polls;
    auto answer = co_await query(master.path, 0, mad::Method::get);
    if (state_ != mad::SmState::standby || !master_ || master_->info.guid != master.info.guid) co_return;
    auto d = after_poll(settings_.self, master.info.guid, answer, misses_, settings_.polling_retries);
    misses_ = d.misses;
    switch (d.action) {
    case PollAction::alive: spdlog::debug("poll: {}", d.reason); break;
    case PollAction::alive_lower:
        spdlog::info("poll: {}", d.reason);
        send_trap144();
        break;
    case PollAction::missed:
        ++counters_.polls_missed;
        spdlog::warn("poll: {}", d.reason);
        break;
    case PollAction::take_over:
        ++counters_.polls_missed;
        ++counters_.takeovers;
        spdlog::warn("poll: {}: taking the subnet over", d.reason);
        excluded_ = master.info.guid;
        master_.reset();
        enter(mad::SmState::discovering, "master SM " + master.info.guid.str() + " stopped answering");
        events_.push(HeavySweepEvent{"master SM " + master.info.guid.str() + " stopped answering: taking over"});
        break;
    }
}

boost::asio::awaitable<void> SmElection::run()
{
    while (!stopped_) {
        const bool polling = state_ == mad::SmState::standby && master_;
        timer_.expires_at(polling ? next_poll_ : Clock::now() + settings_.polling_interval);
        boost::system::error_code ec; // cancelled: the state changed, or stop()
        co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        if (stopped_) break;
        if (state_ != mad::SmState::standby || !master_ || Clock::now() < next_poll_) continue;
        // Polls keep their period whatever each one takes (a dead master's
        // costs the transport's timeout and retries).
        next_poll_ += settings_.polling_interval;
        if (next_poll_ < Clock::now()) next_poll_ = Clock::now() + settings_.polling_interval;
        co_await poll_once();
    }
}

void SmElection::stop()
{
    stopped_ = true;
    timer_.cancel();
}

} // namespace ibsm::daemon
