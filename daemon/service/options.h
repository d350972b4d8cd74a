// ibsmd's command line (CLI11, cli/app.h), parsed into a typed value.
// make_cli declares every flag once; --help, the man page ibsmd(8) and the
// bash completion are generated from that declaration (man/gen_docs.cpp).
// Flags that do not apply to the chosen mode are usage errors, not ignored.
#pragma once

#include "cli/app.h"
#include "config/overrides.h"

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ibsm::daemon {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Options {
    bool discover_only = false;
    bool once = false;       // configure the subnet, exit
    bool foreground = false; // configure, keep running, log to the console
    bool print_config = false;
    // --config FILE; unset: the installed default if it exists
    // (daemon/service/config_path.h).
    std::optional<std::string> config_file;
    bool no_config = false; // --config none: built-in defaults, even when the default file exists
    // Flags that override the configuration file (bring-up modes).
    config::Overrides overrides;
    std::optional<unsigned> lmc;
    bool help = false; // set by parse_options for -h/--help and --version
    std::optional<std::string> dump_dir;
    std::string ca_name;  // empty: first CA with an active/usable port
    int port_num = 0;     // 0: first suitable port
    unsigned window = 16; // SMPs outstanding
    std::chrono::milliseconds timeout{100};
    unsigned retries = 3;
    std::string log_level = "info";
};

// The flags of ibsmd, writing into `into` when parsed.
// (shared_ptr: its deleter is bound where CLI::App is complete.)
std::shared_ptr<CLI::App> make_cli(Options& into);

// Exit statuses of ibsmd, for --help and the man page.
const std::vector<cli::ExitStatus>& exit_statuses();

// For tests: throws UsageError with CLI11's message for a bad command line.
Options parse_options(const std::vector<std::string>& args);

} // namespace ibsm::daemon
