#include "daemon/sweep/sweep_scheduler.h"

#include "daemon/core/node_names.h"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

namespace ibsm::daemon {

namespace {

using Clock = std::chrono::steady_clock;
using topology::PortRef;

template <class... F>
struct Overloaded : F... {
    using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// The node and port owning `lid` in the snapshot.
std::optional<PortRef> owner(const SubnetSnapshot* snap, Lid lid)
{
    if (!snap || lid.value() == 0) return std::nullopt;
    return snap->lids.lids.port_of(lid);
}

void absorb_trap(const TrapEvent& t, const SubnetSnapshot* snap, Work& work)
{
    const auto& n = t.notice;
    const auto number = n.trap_number_or_device_id;
    auto heavy = [&](std::string why) {
        work.heavy = true;
        if (work.heavy_reason.empty()) work.heavy_reason = std::move(why);
    };
    // Switch at `lid`: all of its ports; CA port at `lid`: that port and the
    // switch at the other end of its cable.
    auto look_at = [&](Lid lid, bool describe) {
        auto p = owner(snap, lid);
        if (!p) {
            heavy("trap " + std::to_string(number) + " from LID " + std::to_string(lid.value()) +
                  ", which no known port has");
            return;
        }
        const auto& f = snap->found.fabric;
        const auto& node = f.node(p->node);
        if (node.is_switch()) {
            work.switches.insert(node.guid);
        } else {
            work.ports.insert(f.port(*p).guid);
            if (auto r = f.remote(*p); r && f.node(r->node).is_switch()) work.switches.insert(f.node(r->node).guid);
        }
        if (describe) work.describe.insert(node.guid);
    };
    std::visit(Overloaded{
                   [&](const mad::LinkStateChangeDetails& d) { look_at(d.lid.value() ? d.lid : n.issuer_lid, false); },
                   [&](const mad::PortErrorDetails& d) { look_at(d.lid.value() ? d.lid : n.issuer_lid, false); },
                   [&](const mad::LocalChangesDetails& d) {
                       // A standby SM that outranks us says so with trap 144
                       // (SM priority changed): only a heavy sweep finds SMs.
                       if (d.change_flags & mad::trap144::sm_priority_changed)
                           heavy("trap 144: SM priority changed at LID " + std::to_string(n.issuer_lid.value()));
                       look_at(d.lid.value() ? d.lid : n.issuer_lid,
                               (d.change_flags & mad::trap144::node_description_changed) != 0);
                   },
                   [&](const mad::SystemImageGuidDetails&) {
                       heavy("trap 145: system image GUID changed at LID " + std::to_string(n.issuer_lid.value()));
                   },
                   [&](const mad::GidServiceDetails& d) {
                       std::uint64_t g = 0;
                       for (std::size_t i = 8; i < 16; ++i) g = g << 8 | d.gid[i];
                       auto p = snap ? snap->found.fabric.find_port(Guid(g)) : std::nullopt;
                       if (!p) {
                           heavy("trap " + std::to_string(number) + " for GID with GUID " + Guid(g).str() +
                                 ", which no known port has");
                           return;
                       }
                       const auto& f = snap->found.fabric;
                       work.ports.insert(Guid(g));
                       if (auto r = f.remote(*p); r && f.node(r->node).is_switch())
                           work.switches.insert(f.node(r->node).guid);
                   },
                   [&](const mad::RawDetails&) { look_at(n.issuer_lid, false); },
                   // Trap 256 is the M_Key's business (trap_receiver.cpp), never a TrapEvent.
                   [&](const mad::BadMkeyDetails&) {},
               },
               n.details);
}

} // namespace

void absorb(const Event& event, const SubnetSnapshot* snap, Work& work)
{
    if (!std::holds_alternative<McastTablesEvent>(event) && !std::holds_alternative<LightSweepEvent>(event))
        ++work.events;
    std::visit(Overloaded{
                   [&](const TrapEvent& t) { absorb_trap(t, snap, work); },
                   [&](const PortStateChangeEvent& e) { work.switches.insert(e.switch_guid); },
                   [&](const HeavySweepEvent& e) {
                       work.heavy = true;
                       if (work.heavy_reason.empty()) work.heavy_reason = e.reason;
                   },
                   [&](const ReloadEvent&) {
                       work.heavy = true;
                       work.reload = true;
                       work.heavy_reason = "configuration reloaded (SIGHUP)";
                   },
                   [&](const RetryEvent&) {
                       work.heavy = true;
                       if (work.heavy_reason.empty()) work.heavy_reason = "retry";
                   },
                   [&](const ShutdownEvent&) { work.shutdown = true; },
                   [&](const McastTablesEvent& e) {
                       work.mcast = true;
                       work.mcast_not_before = std::max(work.mcast_not_before, e.not_before);
                   },
                   [&](const LightSweepEvent&) { work.light = true; },
                   [&](const IsolationEvent& e) {
                       work.isolation = true;
                       if (work.isolation_reason.empty()) work.isolation_reason = e.reason;
                   },
               },
               event);
}

Work::Clock::time_point gather_until(const Work& work, Work::Clock::time_point first, Work::Clock::time_point last,
                                     const SchedulerSettings& settings)
{
    if (work.sweeps()) return std::min(last + settings.debounce, first + settings.debounce_max);
    return work.mcast_not_before;
}

RefreshRequest refresh_request(const Work& work, const SubnetSnapshot& snap)
{
    RefreshRequest r;
    const auto& f = snap.found.fabric;
    for (auto g : work.switches)
        if (auto id = f.find_node(g); id && f.node(*id).is_switch()) r.switches.push_back(*id);
    for (auto g : work.ports) {
        auto p = f.find_port(g);
        if (p && !f.node(p->node).is_switch()) r.ports.push_back(*p);
    }
    for (auto g : work.describe)
        if (auto id = f.find_node(g)) r.describe.push_back(*id);
    return r;
}

boost::asio::awaitable<SweepOutcome> SweepScheduler::perform(Work work)
{
    busy_ = true;
    transport_.hold_perf(true); // counter queries wait for the whole piece of work
    if (traps_) traps_->acted();
    SweepOutcome o;
    try {
        const bool names_nothing = work.switches.empty() && work.ports.empty() && work.describe.empty();
        if (work.isolation && !work.heavy && names_nothing) {
            spdlog::info("re-route around isolated links ({})", work.isolation_reason);
            o = co_await bringup_.reroute_isolated();
            if (o.needs_heavy) {
                work.heavy = true;
                work.heavy_reason = o.reason;
            }
        } else if (work.resume && !work.heavy && names_nothing) {
            o = co_await bringup_.resume();
            if (o.needs_heavy) {
                work.heavy = true;
                work.heavy_reason = o.reason;
            } else {
                ++stats_.resumes;
            }
        } else if (!work.heavy) {
            auto snap = bringup_.snapshot();
            auto req = snap ? refresh_request(work, *snap) : RefreshRequest{};
            if (!snap) {
                work.heavy = true;
                work.heavy_reason = "no configured subnet yet";
            } else if (req.empty()) {
                // Everything the events named is gone from the fabric: their
                // neighbours' traps or the next light sweep say more; a
                // heavy sweep settles it now.
                work.heavy = true;
                work.heavy_reason = "the events name nothing the SM knows";
            } else {
                spdlog::info("re-route: {} event(s) -> {} switch(es), {} port(s) to re-read", work.events,
                             req.switches.size(), req.ports.size());
                o = co_await bringup_.reroute(req);
                if (o.needs_heavy) {
                    spdlog::warn("re-route needs a heavy sweep: {}", o.reason);
                    work.heavy = true;
                    work.heavy_reason = o.reason;
                }
            }
        }
        if (work.heavy) {
            spdlog::info("heavy sweep ({})", work.heavy_reason.empty() ? "start" : work.heavy_reason);
            o = co_await bringup_.sweep();
        }
    } catch (const std::exception& e) {
        o = SweepOutcome{};
        o.kind = work.heavy ? SweepKind::heavy : SweepKind::reroute;
        o.reason = e.what();
        if (!stopping_) {
            ++stats_.failures;
            spdlog::error("sweep failed: {}; the SM keeps serving and tries again in {} s", e.what(),
                          settings_.retry_interval.count());
        }
    }
    busy_ = false;
    transport_.hold_perf(false);
    if (stopping_) {
        spdlog::info("sweep interrupted by the shutdown");
        co_return o;
    }
    o.reload = work.reload;
    report(o, work);
    co_return o;
}

void SweepScheduler::report(const SweepOutcome& o, const Work& w)
{
    stats_.events += w.events;
    if (o.kind == SweepKind::heavy)
        ++stats_.heavy_sweeps;
    else
        ++stats_.reroutes;
    if (o.unchanged) ++stats_.unchanged;
    up_ = o.up;
    standby_ = o.standby;
    partial_in_row_ = o.up ? 0 : o.partial ? partial_in_row_ + 1 : 0;
    const bool isolation_only = w.isolation && w.switches.empty() && w.ports.empty() && w.describe.empty();
    const std::string what = o.kind == SweepKind::heavy ? "heavy sweep"
                             : isolation_only          ? std::string("re-route around isolated links")
                             : w.resume && w.events == 0 ? std::string("resume")
                                                         : "re-route of " + std::to_string(w.events) + " event(s)";
    if (o.standby) {
        spdlog::info("STANDBY ({}): {}; nothing programmed", what, o.reason);
    } else if (o.unchanged) {
        spdlog::info("re-route of {} event(s): nothing changed ({:.3f} s, {} SMPs), generation {} stays", w.events,
                     o.seconds, o.smps, o.generation);
    } else if (o.up && o.degraded) {
        spdlog::error("SUBNET DEGRADED (generation {}, {}): {} nodes ({} switches, {} CAs), engine {}: {}; {:.3f} s, "
                      "{} SMPs, P_Key blocks sent: {}, PortInfo Sets: {}, LFT blocks sent: {}",
                      o.generation, what, o.nodes, o.switches, o.cas, o.engine, o.reason, o.seconds, o.smps,
                      o.pkey_blocks_sent, o.port_info_sets, o.lft_blocks_sent);
    } else if (o.up) {
        spdlog::info("SUBNET UP (generation {}, {}): {} nodes ({} switches, {} CAs), engine {}, {:.3f} s, {} SMPs "
                     "({:.0f} SMPs/s), P_Key blocks sent: {}, PortInfo Sets: {}, LFT blocks sent: {}",
                     o.generation, what, o.nodes, o.switches, o.cas, o.engine, o.seconds, o.smps,
                     o.seconds > 0 ? o.smps / o.seconds : 0.0, o.pkey_blocks_sent, o.port_info_sets,
                     o.lft_blocks_sent);
    } else {
        if (once_ && !resume_next()) // --once: no next attempt
            spdlog::error("subnet NOT up: {}", o.reason);
        else
            spdlog::error("subnet NOT up: {} (next attempt in {:.1f} s{})", o.reason, retry_delay().count() / 1000.0,
                          resume_next() ? ", resuming the failed part" : "");
    }
    auto snap = bringup_.snapshot();
    for (const auto& f : observers_) {
        try {
            f(o, snap);
        } catch (const std::exception& e) {
            spdlog::error("after the sweep: {} (ignored; the SM keeps running)", e.what());
        }
    }
}

boost::asio::awaitable<void> SweepScheduler::push_mcast()
{
    if (stopping_) co_return;
    if (!mcast_push_) {
        spdlog::debug("multicast tables changed, but nothing is registered to push them");
        co_return;
    }
    try {
        co_await mcast_push_();
    } catch (const std::exception& e) {
        // Not a sweep failure: the next join, leave or sweep asks again.
        if (!stopping_) spdlog::error("multicast: pushing forwarding tables failed: {}", e.what());
    }
}

boost::asio::awaitable<void> SweepScheduler::light_sweep_now()
{
    auto snap = bringup_.snapshot();
    if (!snap) {
        spdlog::info("light sweep: no configured subnet yet; the next heavy sweep looks at the fabric");
        co_return;
    }
    busy_ = true;
    // Counter queries wait, as during any sweep: the light sweep's time is
    // how late a missed change is seen, and at 27 648 hosts a counter sweep
    // (362 304 MADs over 12-25 s) overlaps most light sweeps.
    transport_.hold_perf(true);
    LightSweepReport r;
    try {
        r = co_await light_sweep(transport_, *snap, events_, settings_.light_width);
    } catch (...) {
        busy_ = false;
        transport_.hold_perf(false);
        throw;
    }
    busy_ = false;
    transport_.hold_perf(false);
    ++stats_.light_sweeps;
    spdlog::debug("light sweep: {} SMPs in {:.3f} s, {} switch(es) changed, {} LID-routed Get(s) fell back to DR",
                  r.smps, r.seconds, r.changed.size(), r.lid_failures);
    if (!r.changed.empty()) spdlog::info("light sweep: PortStateChange on {} switch(es)", r.changed.size());
}

void SweepScheduler::observe(const Event& e)
{
    if (event_observer_ && !std::holds_alternative<McastTablesEvent>(e)) event_observer_(e);
}

std::chrono::milliseconds SweepScheduler::retry_delay() const
{
    const std::chrono::milliseconds full = settings_.retry_interval;
    if (partial_in_row_ == 0) return full;
    auto d = settings_.quick_retry * (1u << std::min(partial_in_row_ - 1, 16u));
    return std::min(d, full);
}

boost::asio::awaitable<SweepOutcome> SweepScheduler::run_once()
{
    // A sweep that could not start (the SM's own port did not answer: a
    // port still coming up, a simulator slow to answer its first client) is
    // tried again a few times before --once gives up; a sweep that ran and
    // found the subnet not up is the answer.
    once_ = true;
    SweepOutcome o;
    for (unsigned attempt = 0; attempt < 3; ++attempt) {
        const auto failures = stats_.failures;
        Work w;
        w.heavy = true;
        o = co_await perform(std::move(w));
        if (stats_.failures == failures || stopping_) break;
        boost::asio::steady_timer pause(co_await boost::asio::this_coro::executor, std::chrono::seconds(1));
        co_await pause.async_wait(boost::asio::use_awaitable);
    }
    while (!o.up && !o.standby && !stopping_ && resume_next()) {
        boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, retry_delay());
        co_await t.async_wait(boost::asio::use_awaitable);
        Work r;
        r.resume = true;
        o = co_await perform(std::move(r));
    }
    co_return o;
}

boost::asio::awaitable<void> SweepScheduler::run()
{
    {
        Work w;
        w.heavy = true;
        co_await perform(std::move(w));
    }
    auto last_work = Clock::now();
    auto last_light = Clock::now();
    for (;;) {
        const auto far = Clock::time_point::max();
        auto next_light = far;
        if (settings_.light_interval.count() > 0 && up_) next_light = last_light + settings_.light_interval;
        auto next_retry = up_ || standby_ ? far : last_work + retry_delay();
        auto ev = co_await events_.pop_until(std::min(next_light, next_retry));
        Work w;
        if (!ev) {
            const auto now = Clock::now();
            if (now >= next_retry) {
                if (resume_next())
                    w.resume = true;
                else
                    absorb(RetryEvent{}, nullptr, w);
            } else if (now >= next_light) {
                last_light = now;
                co_await light_sweep_now();
                continue;
            } else {
                continue;
            }
        } else {
            observe(*ev);
            absorb(*ev, bringup_.snapshot().get(), w);
        }
        if (w.shutdown) break;
        // Fold what keeps coming: sweep work up to debounce_max after the
        // first event, a multicast push alone until its batch is gathered.
        const auto first = Clock::now();
        for (;;) {
            auto more = co_await events_.pop_until(gather_until(w, first, Clock::now(), settings_));
            if (!more) break;
            observe(*more);
            absorb(*more, bringup_.snapshot().get(), w);
            if (w.shutdown) break;
        }
        if (w.shutdown) break;
        // The sweep part first: the trees are computed over the snapshot it leaves.
        const bool mcast = w.mcast;
        const bool light = w.light;
        const bool heavy = w.heavy;
        if (w.sweeps()) {
            co_await perform(std::move(w));
            last_work = Clock::now();
        }
        if (light && !heavy) {
            co_await light_sweep_now();
            last_light = Clock::now();
        }
        if (mcast) co_await push_mcast();
    }
    spdlog::info("scheduler stopped: {} heavy sweep(s), {} re-route(s) ({} found nothing changed), {} light "
                 "sweep(s), {} event(s)",
                 stats_.heavy_sweeps, stats_.reroutes, stats_.unchanged, stats_.light_sweeps, stats_.events);
}

} // namespace ibsm::daemon
