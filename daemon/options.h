// ibsmd's command line, parsed into a typed value. Bad flags throw
// UsageError with a message naming the flag; main prints it with the usage.
#pragma once

#include "config/overrides.h"

#include <chrono>
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
    std::optional<std::string> config_file;
    bool no_config = false; // --config none: built-in defaults, even when the default file exists
    // Flags that override the configuration file (bring-up modes).
    config::Overrides overrides;
    std::optional<unsigned> lmc;
    bool help = false;
    std::optional<std::string> dump_dir;
    std::string ca_name;  // empty: first CA with an active/usable port
    int port_num = 0;     // 0: first suitable port
    unsigned window = 16; // SMPs outstanding
    std::chrono::milliseconds timeout{100};
    unsigned retries = 3;
    std::string log_level = "info";
};

Options parse_options(const std::vector<std::string>& args);
const char* usage();

} // namespace ibsm::daemon
