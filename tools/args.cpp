#include "tools/args.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace ibsm::tools {

std::uint64_t parse_number(std::string_view text, std::string_view what, std::uint64_t min, std::uint64_t max)
{
    std::string_view digits = text;
    int base = 10;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        digits.remove_prefix(2);
        base = 16;
    }
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size())
        throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not a number");
    if (v < min || v > max)
        throw UsageError(std::string(what) + ": " + std::string(text) + " is out of range " + std::to_string(min) +
                         ".." + std::to_string(max));
    return v;
}

Args::Args(std::vector<std::string> command, Given given, std::vector<std::string> positional,
           std::vector<std::string> argv)
    : command_(std::move(command)), given_(std::move(given)), positional_(std::move(positional)), argv_(std::move(argv))
{
}

bool Args::has(std::string_view name) const
{
    return std::any_of(given_.begin(), given_.end(), [&](const auto& g) { return g.first == name; });
}

std::optional<std::string> Args::value(std::string_view name) const
{
    for (const auto& g : given_)
        if (g.first == name) return g.second;
    return std::nullopt;
}

std::vector<std::string> Args::values(std::string_view name) const
{
    std::vector<std::string> out;
    for (const auto& g : given_)
        if (g.first == name && g.second) out.push_back(*g.second);
    return out;
}

std::string Args::required(std::string_view name) const
{
    auto v = value(name);
    if (!v) throw UsageError("missing required option --" + std::string(name));
    return *v;
}

std::uint64_t Args::number(std::string_view name, std::uint64_t fallback, std::uint64_t min, std::uint64_t max) const
{
    auto v = value(name);
    if (!v) return fallback;
    return parse_number(*v, "--" + std::string(name), min, max);
}

std::uint64_t Args::required_number(std::string_view name, std::uint64_t min, std::uint64_t max) const
{
    return parse_number(required(name), "--" + std::string(name), min, max);
}

std::vector<unsigned> Args::number_list(std::string_view name, unsigned min, unsigned max) const
{
    std::vector<unsigned> out;
    auto v = value(name);
    if (!v) return out;
    std::string_view rest = *v;
    while (true) {
        auto comma = rest.find(',');
        out.push_back(static_cast<unsigned>(parse_number(rest.substr(0, comma), "--" + std::string(name), min, max)));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return out;
}

} // namespace ibsm::tools
