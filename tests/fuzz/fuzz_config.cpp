// libFuzzer harness for the YAML loader (config::parse_config): whatever
// the text, it yields a Config or throws ConfigError. yaml-cpp's own
// exceptions, std::out_of_range from a conversion, anything else escaping
// is a bug (the daemon turns ConfigError into exit 78 and would crash on
// the rest).
#include "config/config.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    try {
        (void)ibsm::config::parse_config(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
    } catch (const ibsm::config::ConfigError&) {
    }
    return 0;
}
