#include "config/config.h"

#include <array>

namespace ibsm::config {
namespace {

constexpr std::array<std::string_view, 7> level_names{"trace", "debug", "info", "warn", "error", "critical", "off"};

} // namespace

std::string_view to_string(LogLevel level) { return level_names.at(static_cast<std::size_t>(level)); }

std::optional<LogLevel> parse_log_level(std::string_view name)
{
    for (std::size_t i = 0; i < level_names.size(); ++i)
        if (level_names[i] == name) return static_cast<LogLevel>(i);
    return std::nullopt;
}

std::string_view to_string(SwitchSl2Vl mode) { return mode == SwitchSl2Vl::always ? "always" : "auto"; }

std::string known_log_levels_text()
{
    std::string out;
    for (auto name : level_names) {
        if (!out.empty()) out += '|';
        out += name;
    }
    return out;
}

} // namespace ibsm::config
