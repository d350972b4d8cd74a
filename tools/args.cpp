#include "tools/args.h"

#include <algorithm>
#include <charconv>

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

Args::Args(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs, bool allow_positional)
{
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() < 3 || a.rfind("--", 0) != 0) {
            if (!allow_positional) throw UsageError("unexpected argument '" + a + "'");
            positional_.push_back(a);
            continue;
        }
        std::string name = a.substr(2);
        std::optional<std::string> val;
        if (auto eq = name.find('='); eq != std::string::npos) {
            val = name.substr(eq + 1);
            name.resize(eq);
        }
        auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.name == name; });
        if (spec == specs.end()) throw UsageError("unknown option --" + name);
        if (spec->takes_value && !val) {
            if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
            val = argv[++i];
        }
        if (!spec->takes_value && val) throw UsageError("option --" + name + " takes no value");
        if (has(name)) throw UsageError("option --" + name + " given twice");
        given_.emplace_back(std::move(name), std::move(val));
    }
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
