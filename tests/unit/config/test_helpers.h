// Shared by the config tests: fixture paths and "what did it throw".
#pragma once

#include "config/config.h"

#include <catch2/catch.hpp>

#include <functional>
#include <string>

namespace config_test {

inline std::string source_path(const std::string& rel) { return std::string(IBSMD_SOURCE_DIR) + "/" + rel; }
inline std::string fixture(const std::string& name) { return source_path("tests/data/config/" + name); }

// The message of the ConfigError `f` throws; fails the test if it throws nothing.
inline std::string error_of(const std::function<void()>& f)
{
    try {
        f();
    } catch (const ibsm::config::ConfigError& e) {
        return e.what();
    }
    FAIL("no ConfigError thrown");
    return {};
}

// The error parsing `yaml` as "t.yaml" gives.
inline std::string parse_error(const std::string& yaml)
{
    return error_of([&] { (void)ibsm::config::parse_config(yaml, "t.yaml"); });
}

} // namespace config_test
