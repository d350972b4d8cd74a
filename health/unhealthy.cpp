#include "health/unhealthy.h"

#include <cstdio>

namespace ibsm::health {

namespace {

std::string seconds_text(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", s);
    return buf;
}

struct Condition {
    Rule rule;
    const CountRule& config;
    const EventTimes* times;
    bool above; // fires above `count` rather than at it
    const char* what; // "reboots", ...
};

} // namespace

void evaluate_unhealthy(const HealthPolicy& policy, const Inputs& in, std::vector<Finding>& out)
{
    const Condition conditions[] = {
        {Rule::reboot, policy.reboot, in.reboots, false, "reboots (left the fabric and came back, or counters reset)"},
        {Rule::noisy, policy.noisy, in.traps, true, "traps 129/130/131"},
        {Rule::set_errors, policy.set_errors, in.set_errors, false, "Sets answered with a bad status"},
        {Rule::illegal, policy.illegal, in.illegal, false, "answers that did not decode"},
    };
    for (const auto& c : conditions) {
        if (!c.times || c.config.action == Action::off || c.config.count == 0) continue;
        for (const auto& [key, times] : *c.times) {
            const unsigned n = downs_within(times, in.now, c.config.window_s);
            if (c.above ? n <= c.config.count : n < c.config.count) continue;
            out.push_back({key, c.rule, std::nullopt, c.config.action,
                           std::to_string(n) + " " + c.what + " within " + seconds_text(c.config.window_s) +
                               " s (threshold: " + (c.above ? "more than " : "") + std::to_string(c.config.count) +
                               ")"});
        }
    }
}

void prune(EventTimes& times, double now, double window_s)
{
    for (auto it = times.begin(); it != times.end();) {
        std::erase_if(it->second, [&](double t) { return now - t > window_s; });
        it = it->second.empty() ? times.erase(it) : std::next(it);
    }
}

} // namespace ibsm::health
