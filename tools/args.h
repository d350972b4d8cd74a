// Option parsing shared by the ibsm subcommands: "--name value",
// "--name=value" and "--flag", every option declared up front so a typo is a
// usage error instead of being ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::tools {

// Bad command line: main prints it with the subcommand's usage hint, exit 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct OptionSpec {
    std::string name; // without "--"
    bool takes_value;
};

class Args {
public:
    // Throws UsageError for undeclared options, missing values, repeated
    // options and (unless allow_positional) positional arguments.
    Args(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs, bool allow_positional = false);

    bool has(std::string_view name) const;
    std::optional<std::string> value(std::string_view name) const;
    std::string required(std::string_view name) const;

    // Unsigned number in [min, max]; `fallback` when the option is absent.
    std::uint64_t number(std::string_view name, std::uint64_t fallback, std::uint64_t min, std::uint64_t max) const;
    std::uint64_t required_number(std::string_view name, std::uint64_t min, std::uint64_t max) const;
    // Comma-separated numbers, "12,12,24", each in [min, max]; empty if absent.
    std::vector<unsigned> number_list(std::string_view name, unsigned min, unsigned max) const;

    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::vector<std::pair<std::string, std::optional<std::string>>> given_;
    std::vector<std::string> positional_;
};

// Parses one unsigned decimal (or 0x hex) number; `what` names it in errors.
std::uint64_t parse_number(std::string_view text, std::string_view what, std::uint64_t min, std::uint64_t max);

} // namespace ibsm::tools
