#include "config/overrides.h"

#include "config/engines.h"
#include "config/value_ranges.h"

namespace ibsm::config {
namespace {

[[noreturn]] void fail(std::string_view flag, const std::string& message)
{
    throw ConfigError("command line: " + std::string(flag) + ": " + message);
}

unsigned checked(std::string_view flag, unsigned v, Range r)
{
    if (!r.contains(v))
        fail(flag, "expected an integer in " + std::to_string(r.lo) + ".." + std::to_string(r.hi) + ", got " +
                       std::to_string(v));
    return v;
}

std::vector<std::string> engine_chain(const std::vector<std::string>& given)
{
    std::vector<std::string> out;
    for (const auto& item : given)
        for (auto& name : split_engine_list(item)) out.push_back(std::move(name));
    if (auto problem = check_engine_chain(out)) fail("--engine", problem->message);
    return out;
}

} // namespace

Config apply_overrides(Config config, const Overrides& o)
{
    if (o.state_dir) {
        if (o.state_dir->empty()) fail("--state-dir", "expected a path, got nothing");
        config.state_dir = *o.state_dir;
    }
    if (o.engines) config.routing.engines = engine_chain(*o.engines);
    if (o.verify_incremental) config.routing.verify_incremental = true;
    if (o.log_level) {
        auto level = parse_log_level(*o.log_level);
        if (!level)
            fail("--log-level", "unknown log level '" + *o.log_level + "' (known: " + known_log_levels_text() + ")");
        config.log.level = *level;
    }
    if (o.ca) {
        if (o.ca->empty()) fail("--ca", "expected a CA name, got nothing");
        config.sm.ca = *o.ca;
        config.sm.port_guid.reset();
    }
    if (o.port) {
        config.sm.port = PortNum(static_cast<std::uint8_t>(checked("--port", *o.port, limits::sm_port)));
        config.sm.port_guid.reset();
    }
    if (o.port_guid) {
        config.sm.port_guid = *o.port_guid;
        config.sm.ca.reset();
        config.sm.port.reset();
    }
    if (o.smp_window) config.smp.window = checked("--smp-window", *o.smp_window, limits::smp_window);
    if (o.smp_timeout_ms)
        config.smp.timeout =
            std::chrono::milliseconds(checked("--smp-timeout-ms", *o.smp_timeout_ms, limits::smp_timeout_ms));
    if (o.smp_retries) config.smp.retries = checked("--smp-retries", *o.smp_retries, limits::smp_retries);
    return config;
}

} // namespace ibsm::config
