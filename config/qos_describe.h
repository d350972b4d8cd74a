// `qos:` and `security:` written back as YAML that parse_config reads to the
// same values (--print-config, and the text reload compares).
#pragma once

#include "config/qos_config.h"

#include <yaml-cpp/yaml.h>

#include <string>

namespace ibsm::config {

// The value of the `qos` key (`{}` when no policy is configured).
void emit_qos(YAML::Emitter& out, const QosConfig& qos);
// The value of `security.mkey`, as one flow mapping.
void emit_mkey(YAML::Emitter& out, const MkeyConfig& mkey);

// The same on one line, for config/reload.cpp's flattened view.
std::string qos_text(const QosConfig& qos);
std::string mkey_text(const MkeyConfig& mkey);

} // namespace ibsm::config
