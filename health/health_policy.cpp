#include "health/health_policy.h"

#include "health/unhealthy.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace ibsm::health {

namespace {

std::string seconds_text(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", s);
    return buf;
}

bool enabled(Action a) { return a != Action::off; }

} // namespace

std::string_view action_name(Action a)
{
    switch (a) {
    case Action::off: return "off";
    case Action::report: return "report";
    case Action::isolate: return "isolate";
    case Action::no_discover: return "no_discover";
    }
    return "off";
}

std::optional<Action> action_from_name(std::string_view name)
{
    for (auto a : {Action::off, Action::report, Action::isolate, Action::no_discover})
        if (action_name(a) == name) return a;
    return std::nullopt;
}

std::string_view rule_name(Rule r)
{
    switch (r) {
    case Rule::threshold: return "threshold";
    case Rule::flapping: return "flapping";
    case Rule::unresponsive: return "unresponsive";
    case Rule::downshift: return "downshift";
    case Rule::reboot: return "reboot";
    case Rule::noisy: return "noisy";
    case Rule::set_errors: return "set_errors";
    case Rule::illegal: return "illegal";
    case Rule::operator_command: return "operator";
    }
    return "threshold";
}

std::optional<Rule> rule_from_name(std::string_view name)
{
    for (auto r : {Rule::threshold, Rule::flapping, Rule::unresponsive, Rule::downshift, Rule::reboot, Rule::noisy,
                   Rule::set_errors, Rule::illegal, Rule::operator_command})
        if (rule_name(r) == name) return r;
    return std::nullopt;
}

unsigned downs_within(const std::vector<double>& times, double now, double window_s)
{
    return static_cast<unsigned>(
        std::count_if(times.begin(), times.end(), [&](double t) { return t <= now && now - t <= window_s; }));
}

std::vector<Finding> evaluate(const HealthPolicy& policy, const Inputs& in)
{
    std::vector<Finding> out;
    if (in.counters)
        for (const auto& [port, c] : *in.counters) {
            if (c.interval_s <= 0) continue; // one read so far: no interval to judge
            for (std::size_t i = 0; i < error_counter_count; ++i) {
                const auto& t = policy.thresholds[i];
                if (!enabled(t.action) || t.per_interval == 0 || c.delta[i] < t.per_interval) continue;
                const auto counter = static_cast<Counter>(i);
                out.push_back({port, Rule::threshold, counter, t.action,
                               std::string(counter_name(counter)) + " +" + std::to_string(c.delta[i]) + " in " +
                                   seconds_text(c.interval_s) + " s (threshold " + std::to_string(t.per_interval) +
                                   " per interval)"});
            }
        }
    if (in.downs && enabled(policy.flap_action) && policy.flap_downs > 0)
        for (const auto& [port, times] : *in.downs) {
            const auto n = downs_within(times, in.now, policy.flap_window_s);
            if (n < policy.flap_downs) continue;
            out.push_back({port, Rule::flapping, std::nullopt, policy.flap_action,
                           std::to_string(n) + " link-downs within " + seconds_text(policy.flap_window_s) +
                               " s (threshold " + std::to_string(policy.flap_downs) + ")"});
        }
    if (in.timeouts && enabled(policy.unresponsive_action) && policy.unresponsive_timeouts > 0)
        for (const auto& [port, history] : *in.timeouts) {
            const auto m = std::min<std::size_t>(history.size(), policy.unresponsive_sweeps);
            const auto k = std::count(history.end() - static_cast<std::ptrdiff_t>(m), history.end(), true);
            if (static_cast<unsigned>(k) < policy.unresponsive_timeouts) continue;
            out.push_back({port, Rule::unresponsive, std::nullopt, policy.unresponsive_action,
                           "timeouts in " + std::to_string(k) + " of the last " + std::to_string(m) +
                               " sweeps (threshold " + std::to_string(policy.unresponsive_timeouts) + " of " +
                               std::to_string(policy.unresponsive_sweeps) + ")"});
        }
    if (in.links && enabled(policy.downshift_action))
        for (const auto& [port, check] : *in.links) {
            if (!check.downshifted) continue;
            std::string what;
            for (const auto& f : check.findings) what += (what.empty() ? "" : ", ") + f;
            if (what.empty())
                what = "width " + std::string(active_width_name(check)) + " of " +
                       std::string(possible_width_name(check)) + ", speed " + std::string(active_speed_name(check)) +
                       " of " + std::string(possible_speed_name(check));
            out.push_back({port, Rule::downshift, std::nullopt, policy.downshift_action, "downshifted: " + what});
        }
    evaluate_unhealthy(policy, in, out);
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        return std::tie(a.port, a.rule, a.counter) < std::tie(b.port, b.rule, b.counter);
    });
    return out;
}

} // namespace ibsm::health
