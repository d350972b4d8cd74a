#include "daemon/service/control_handlers.h"

#include "daemon/service/log_setup.h"
#include "daemon/service/mkey_rotation.h"
#include "health/port_health_json.h"

#include <spdlog/spdlog.h>

namespace ibsm::daemon {

std::string request_resweep(EventQueue& events, bool heavy)
{
    if (heavy) {
        events.push(HeavySweepEvent{"requested by ibsm resweep --heavy"});
        return "heavy sweep queued";
    }
    events.push(LightSweepEvent{"requested by ibsm resweep"});
    return "light sweep queued";
}

control::LevelChange change_log_level(config::LogLevel level)
{
    const auto old = set_log_level(level);
    spdlog::info("log level {} -> {} (ibsm log-level)", config::to_string(old), config::to_string(level));
    return control::LevelChange{old, level};
}

control::PortActionResult rotate_mkeys_now(MkeyBook& book, const config::Config& running, EventQueue& events)
{
    const auto d = rotate_mkeys(book, running);
    if (d.start) events.push(HeavySweepEvent{"M_Key rotation (ibsm mkey rotate)"});
    return control::PortActionResult{d.start, d.text};
}

control::MkeyPortView mkey_port_view(const MkeyBook& book, Guid port_guid)
{
    const auto v = book.view(port_guid);
    return control::MkeyPortView{v.held.has_value() || v.present, v.held, v.desired, v.present};
}

whatif::Setup drain_setup(const BringupSettings& s)
{
    whatif::Setup out;
    out.chain = s.chain;
    out.route = s.route;
    out.route.lmc = s.lid.lmc;
    return out;
}

std::vector<StatusDrain> drain_status(const Drains& drains)
{
    std::vector<StatusDrain> out;
    for (const auto& d : drains.records())
        out.push_back(StatusDrain{d.kind, d.node.str(), d.port.value(), d.label, d.since, d.links.size()});
    return out;
}

control::ControlHandlers control_handlers(const ControlWings& w)
{
    auto kind = [](control::DrainKind k) {
        return k == control::DrainKind::link ? whatif::TargetKind::link : whatif::TargetKind::switch_node;
    };
    auto answer = [](const DrainResult& r) { return control::DrainAnswer{r.ok, r.text, r.whatif}; };
    auto action = [](const HealthCommandResult& r) { return control::PortActionResult{r.ok, r.text}; };
    return control::ControlHandlers{
        .status = [status = w.status] { return nlohmann::json(state_object(status())); },
        .port_rows = [&health = w.health, drains = w.drains] { return drains ? drains->mark(health.rows()) : health.rows(); },
        .port_json = [](const health::PortHealth& row) { return health::to_json(row); },
        .isolate = [&health = w.health, action](health::PortId port,
                                                const std::string& reason) { return action(health.isolate(port, reason)); },
        .clear = [&health = w.health, action](health::PortId port) { return action(health.clear(port)); },
        .resweep = [&events = w.events](bool heavy) { return request_resweep(events, heavy); },
        .log_level = change_log_level,
        .mkey_rotate = [&book = w.mkeys, &running = w.running,
                        &events = w.events] { return rotate_mkeys_now(book, running, events); },
        .mkey_show = [&book = w.mkeys](Guid g) { return mkey_port_view(book, g); },
        .drain = w.drains ? std::function<control::DrainAnswer(const control::DrainOrder&)>(
                                [drains = w.drains, kind, answer](const control::DrainOrder& o) {
                                    return answer(drains->drain(kind(o.kind), o.target, o.dry_run));
                                })
                          : nullptr,
        .undrain = w.drains ? std::function<control::DrainAnswer(const control::DrainOrder&)>(
                                  [drains = w.drains, kind, answer](const control::DrainOrder& o) {
                                      return answer(drains->undrain(kind(o.kind), o.target));
                                  })
                            : nullptr,
    };
}

} // namespace ibsm::daemon
