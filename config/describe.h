// The effective configuration as YAML (ibsmd --print-config). The output is
// itself a valid ibsmd.yaml: parse_config(describe(c), ...) == c.
#pragma once

#include "config/config.h"

#include <string>

namespace ibsm::config {

std::string describe(const Config& config);

} // namespace ibsm::config
