// Command-line flags that override the configuration file. The daemon parses
// its flags into Overrides; apply_overrides validates them against the same
// rules as the file and returns the effective Config.
#pragma once

#include "config/config.h"

#include <optional>
#include <string>
#include <vector>

namespace ibsm::config {

struct Overrides {
    std::optional<std::string> state_dir;            // --state-dir DIR
    std::optional<std::vector<std::string>> engines; // --engine E[,E2...]; elements may hold commas
    std::optional<std::string> log_level;            // --log-level L
    std::optional<std::string> ca;                   // --ca NAME
    std::optional<unsigned> port;                    // --port N
    std::optional<Guid> port_guid;                   // --port-guid GUID
    std::optional<unsigned> smp_window;              // --smp-window N
    std::optional<unsigned> smp_timeout_ms;          // --smp-timeout-ms N
    std::optional<unsigned> smp_retries;             // --smp-retries N
    bool verify_incremental = false;                 // --verify-incremental (sets routing.verify_incremental)
};

// Flags win over the file. --engine replaces routing.engines (routing.no_fallback
// still applies); --ca or --port selects the port by CA/number, so they clear
// sm.port_guid; --port-guid selects it by GUID and clears sm.ca and sm.port. Throws ConfigError "command line: --flag: what" for bad values.
Config apply_overrides(Config config, const Overrides& overrides);

} // namespace ibsm::config
