#include "daemon/control/dispatcher.h"

#include <cstdio>
#include <exception>

namespace ibsm::daemon::control {

namespace {

using Json = nlohmann::json;

Json unavailable(const Request& r, std::string_view what)
{
    return error_response(r.id, "'" + std::string(command_name(r.cmd)) + "' is not available: this ibsmd " +
                                    std::string(what));
}

Json port_answer(const Request& r, const ControlHandlers& h)
{
    if (!h.port_rows || !h.port_json) return unavailable(r, "keeps no port health");
    const auto rows = h.port_rows();
    const std::size_t n = r.limit ? std::min(*r.limit, rows.size()) : rows.size();
    Json list = Json::array();
    for (std::size_t i = 0; i < n; ++i) list.push_back(h.port_json(rows[i]));
    return ok_response(r.id, Json{{"ports", std::move(list)}, {"total", rows.size()}});
}

Json port_action(const Request& r, const ControlHandlers& h)
{
    const health::PortId id{r.node_guid, r.port};
    const bool isolate = r.action == PortAction::isolate;
    if (isolate ? !h.isolate : !h.clear) return unavailable(r, "has no health monitor to act on ports");
    const PortActionResult res = isolate ? h.isolate(id, isolate_reason) : h.clear(id);
    const std::string what = std::string(action_name(r.action)) + " " + r.node_guid.str() + " port " +
                             std::to_string(r.port.value());
    if (!res.ok) return error_response(r.id, what + " refused: " + res.text);
    return ok_response(r.id, Json{{"result", res.text}});
}

std::string hex_key(std::uint64_t k)
{
    char buf[19];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(k));
    return buf;
}

Json mkey_answer(const Request& r, const ControlHandlers& h)
{
    if (r.mkey_action == MkeyAction::rotate) {
        if (!h.mkey_rotate) return unavailable(r, "keeps no M_Keys");
        const PortActionResult res = h.mkey_rotate();
        if (!res.ok) return error_response(r.id, res.text);
        return ok_response(r.id, Json{{"result", res.text}});
    }
    if (!h.mkey_show) return unavailable(r, "keeps no M_Keys");
    const MkeyPortView v = h.mkey_show(r.port_guid);
    if (!v.known) return error_response(r.id, "no port with GUID " + r.port_guid.str() + " in the fabric");
    Json j{{"port_guid", r.port_guid.str()}, {"desired", hex_key(v.desired)}, {"present", v.present}};
    j["held"] = v.held ? Json(hex_key(*v.held)) : Json(nullptr);
    return ok_response(r.id, std::move(j));
}

Json drain_answer(const Request& r, const ControlHandlers& h)
{
    const bool drain = r.cmd == Command::drain;
    const auto& handler = drain ? h.drain : h.undrain;
    if (!handler) return unavailable(r, "keeps no drains");
    const DrainAnswer a = handler(DrainOrder{r.drain_kind, r.target, r.dry_run});
    if (!a.ok) {
        Json e = error_response(r.id, std::string(command_name(r.cmd)) + " " + std::string(kind_name(r.drain_kind)) +
                                          " " + r.target + " refused: " + a.text);
        if (!a.whatif.is_null()) e["whatif"] = a.whatif;
        return e;
    }
    Json j{{"result", a.text}};
    if (!a.whatif.is_null()) j["whatif"] = a.whatif;
    return ok_response(r.id, std::move(j));
}

Json answer(const Request& r, const ControlHandlers& h)
{
    switch (r.cmd) {
    case Command::status:
        if (!h.status) return unavailable(r, "keeps no status");
        return ok_response(r.id, Json{{"status", h.status()}});
    case Command::ports: return port_answer(r, h);
    case Command::port: return port_action(r, h);
    case Command::resweep:
        if (!h.resweep) return unavailable(r, "takes no sweep requests");
        return ok_response(r.id, Json{{"result", h.resweep(r.heavy)}});
    case Command::log_level: {
        if (!h.log_level) return unavailable(r, "cannot change its log level");
        const LevelChange c = h.log_level(r.level);
        return ok_response(r.id, Json{{"old", std::string(config::to_string(c.old_level))},
                                      {"new", std::string(config::to_string(c.new_level))}});
    }
    case Command::events: return ok_response(r.id, Json{{"following", true}});
    case Command::mkey: return mkey_answer(r, h);
    case Command::drain:
    case Command::undrain: return drain_answer(r, h);
    }
    return error_response(r.id, "unhandled command");
}

} // namespace

Dispatched dispatch(const Request& request, const ControlHandlers& handlers)
{
    Dispatched d;
    try {
        d.response = answer(request, handlers);
        d.follow = request.cmd == Command::events && d.response.value("ok", false);
    } catch (const std::exception& e) {
        // A handler's failure is this request's answer, never the daemon's end.
        d.response = error_response(request.id, std::string(command_name(request.cmd)) + " failed: " + e.what());
    }
    return d;
}

} // namespace ibsm::daemon::control
