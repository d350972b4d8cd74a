// The ibsm subcommands' view of their command line. Each subcommand
// declares its options as data (CommandSpec, with the help text of each);
// tools/ibsm_cli.cpp turns the declarations into CLI11 subcommands, parses
// ("--name value", "--name=value", "--flag", -h/--help everywhere) and hands
// the subcommand an Args holding what was given. Numbers are converted
// here, by the subcommand, so it can name its own ranges.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ibsm::tools {

// Bad command line found after parsing (a missing combination, a value out
// of range): main prints it on one line, exit 64 (cli/app.h).
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct OptionSpec {
    std::string name;       // without "--"
    std::string value_name; // "N", "FILE"; empty: a flag that takes no value
    std::string help;
    bool required = false;
    bool repeatable = false; // "--without A --without B": every value kept (Args::values)
    bool takes_value() const { return !value_name.empty(); }
};

class Args;

struct CommandSpec {
    std::string name;
    std::string summary;     // one line, listed by `ibsm --help`
    std::string description; // shown by `ibsm <name> --help` and in ibsm(1)
    std::vector<OptionSpec> options;
    std::string positional;      // e.g. "DIR"; empty: no positional arguments
    std::string positional_help;
    std::vector<CommandSpec> subcommands; // one of them is required (topogen's kinds)
    int (*run)(const Args&) = nullptr;    // nullptr: the enclosing command's
};

class Args {
public:
    using Given = std::vector<std::pair<std::string, std::optional<std::string>>>;
    // command: {"topogen", "pgft"}; argv: everything after "ibsm".
    Args(std::vector<std::string> command, Given given, std::vector<std::string> positional,
         std::vector<std::string> argv);

    const std::vector<std::string>& command() const { return command_; }
    const std::vector<std::string>& argv() const { return argv_; }

    bool has(std::string_view name) const;
    std::optional<std::string> value(std::string_view name) const;
    std::string required(std::string_view name) const;
    // Every value of a repeatable option, in command-line order.
    std::vector<std::string> values(std::string_view name) const;

    // Unsigned number in [min, max]; `fallback` when the option is absent.
    std::uint64_t number(std::string_view name, std::uint64_t fallback, std::uint64_t min, std::uint64_t max) const;
    std::uint64_t required_number(std::string_view name, std::uint64_t min, std::uint64_t max) const;
    // Comma-separated numbers, "12,12,24", each in [min, max]; empty if absent.
    std::vector<unsigned> number_list(std::string_view name, unsigned min, unsigned max) const;

    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::vector<std::string> command_;
    Given given_;
    std::vector<std::string> positional_;
    std::vector<std::string> argv_;
};

// Parses one unsigned decimal (or 0x hex) number; `what` names it in errors.
std::uint64_t parse_number(std::string_view text, std::string_view what, std::uint64_t min, std::uint64_t max);

} // namespace ibsm::tools
