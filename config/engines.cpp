#include "config/engines.h"

#include <algorithm>

namespace ibsm::config {

bool is_known_engine(std::string_view name)
{
    return std::find(known_engines.begin(), known_engines.end(), name) != known_engines.end();
}

std::string known_engines_text()
{
    std::string out;
    for (auto name : known_engines) {
        if (!out.empty()) out += ", ";
        out += name;
    }
    return out;
}

std::vector<std::string> split_engine_list(std::string_view text)
{
    auto trim = [](std::string_view s) {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
        return s;
    };
    std::vector<std::string> out;
    for (;;) {
        auto comma = text.find(',');
        out.emplace_back(trim(text.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    return out;
}

std::optional<ChainProblem> check_engine_chain(std::span<const std::string> names)
{
    if (names.empty()) return ChainProblem{0, "the engine chain is empty (known: " + known_engines_text() + ")"};
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string& name = names[i];
        if (name.empty()) return ChainProblem{i, "empty engine name in the chain"};
        if (!is_known_engine(name))
            return ChainProblem{i, "unknown engine '" + name + "' (known: " + known_engines_text() + ")"};
        for (std::size_t j = 0; j < i; ++j)
            if (names[j] == name) return ChainProblem{i, "engine '" + name + "' appears twice in the chain"};
    }
    return std::nullopt;
}

} // namespace ibsm::config
