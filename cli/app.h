// The command-line conventions ibsmd and ibsm share, on CLI11.
//
// Why CLI11 (over Boost.Program_options and cxxopts): it is header-only and
// packaged in Debian (libcli11-dev), so nothing is linked; it has
// subcommands with their own options and -h (`ibsm route -h`), which
// Program_options lacks and cxxopts does not nest; it accepts `--x=v` and
// `--x v`, validates values (ranges, custom checks) at parse time, states
// relations between options (excludes, needs) that become both errors and
// help text; and its App tree can be walked after declaration, so the man
// pages and bash completion (cli/gen_docs.cpp) are generated from the same
// declarations as --help.
//
// Exit statuses, the same in both programs (sysexits.h values for usage and
// configuration, which systemd and scripts know):
//   0  success
//   1  run-time failure (a file that cannot be read, no umad port, subnet not up)
//   2  partial: done, but the result is degraded or has problems
//   64 usage: a bad command line (EX_USAGE)
//   78 configuration: a bad configuration file or value in it (EX_CONFIG)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}

namespace ibsm::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;
inline constexpr int exit_partial = 2;
inline constexpr int exit_usage = 64;
inline constexpr int exit_config = 78;

// One row of a program's EXIT STATUS table (help footer and man page).
struct ExitStatus {
    int code;
    std::string meaning;
};

// "ibsmd 0.1.0 (git a02958b-dirty)"
std::string version_text(std::string_view program);

// -h/--help and --version on `app` (subcommands created afterwards inherit
// -h/--help), and the help layout both programs use.
void setup(CLI::App& app, std::string_view program);

// An option's description with what it needs and excludes, as --help and
// the man page show it.
std::string option_text(const CLI::Option& option);

// The exit-status table as help text, for a footer.
std::string exit_status_text(const std::vector<ExitStatus>& table);

// Parses argv. nullopt: go on and run. Otherwise the exit status to return
// at once: 0 after printing help or the version to stdout, exit_usage after
// printing ONE line to stderr: "<program> [<subcommand>]: <what> (see ... --help)".
std::optional<int> parse(CLI::App& app, int argc, const char* const* argv);
// The same for arguments without the program name (tests).
std::optional<int> parse(CLI::App& app, std::vector<std::string> args);

// Parses or throws: the message of a bad command line as ParseError's
// what(); help and version requests come back as `true`.
bool parse_or_throw(CLI::App& app, std::vector<std::string> args);

} // namespace ibsm::cli
