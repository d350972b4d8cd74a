// ibsmd's command line, parsed into a typed value. Bad flags throw
// UsageError with a message naming the flag; main prints it with the usage.
#pragma once

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
