// OpenSM's opensm.conf read into ibsmd's configuration (`ibsm import-opensm`).
//
// Why: a site moving from OpenSM has its settings in opensm.conf (the file
// `opensm -c` writes, one "key value" per line). Each key with an
// equivalent becomes that ibsmd key; each without one is kept as a note
// saying why, so the operator sees everything that did not carry over.
//
// Data structures: a table from OpenSM key to either a translation (which
// sets fields of a config::Config) or the reason there is none; the result
// holds the Config, the notes in file order, and the files the opensm.conf
// names (partitions, QoS policy) for the caller to read.
//
// Grammar (OpenSM's osm_subnet.c, osm_subn_parse_conf_file): '#' starts a
// comment line; a line is a key, blanks, and the value up to the end of
// the line; "(null)" is an unset path. A key OpenSM does not know is kept
// as a note too. A value ibsmd cannot take (not a number, out of range) is
// a ConfigError "FILE:LINE: key 'KEY': ...".
//
// Pure: reads the stream it is handed.
#pragma once

#include "config/config.h"

#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::config {

struct OpensmNote {
    unsigned line = 0;
    std::string key;
    std::string value;
    std::string why; // why it has no ibsmd equivalent, or how it was taken
};

struct OpensmConf {
    Config config;                        // what translated, on ibsmd's defaults
    std::vector<OpensmNote> untranslated; // keys without an equivalent, in file order
    std::vector<OpensmNote> adapted;      // keys taken with a difference worth saying
    std::optional<std::string> partition_config_file;
    std::optional<std::string> qos_policy_file; // when `qos TRUE`
};

OpensmConf import_opensm_conf(std::istream& in, const std::string& name);

} // namespace ibsm::config
