// The configuration (config/config.h) as the settings each wing takes.
//
// Why a file of its own: the configuration speaks the operator's terms
// (routing.max_vls, smp.window, partitions by name), the wings take what
// they act on (an OperationalVLs code, jobs in flight, partition
// definitions). The mapping is done at start and again on SIGHUP
// (reload.h), so it lives once, here, and is tested on its own.
//
// Data structures: none of its own; each function reads one config::Config
// and returns one wing's settings. Only bringup_settings, read_root_guid_file
// and read_node_name_map touch the file system (routing.root_guid_file,
// OpenSM's GUID files, node_name_map), mkey_settings reads the secret file,
// effective_config the configuration file and partitions_file, and
// control_socket resolves a relative state_dir against the working
// directory.
#pragma once

#include "config/config.h"
#include "daemon/core/mkey_book.h"
#include "daemon/health/perf_poller.h"
#include "daemon/health/health_monitor.h"
#include "daemon/sa/mcast_service.h"
#include "daemon/service/options.h"
#include "daemon/sm/sm_election.h"
#include "daemon/sweep/bringup.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "mad/transport.h"
#include "partition/partitions.h"

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ibsm::daemon {

// The file (--config, else the installed default when it exists, else the
// defaults) with the command line on top, and partitions_file's statements
// read into `partitions`. Throws config::ConfigError.
config::Config effective_config(const Options& opts);

// The statements of OpenSM's partitions.conf at `path`
// (partition/conf_parse.h); config::ConfigError "path:line: what" when it
// cannot be read or parsed. What OpenSM would ignore is logged as warnings,
// or handed to `warnings` when given.
std::vector<partition::Rule> read_partitions_file(const std::string& path,
                                                  std::vector<std::string>* warnings = nullptr);

// The CA and port the SM runs on: sm.port_guid looked up among the local
// ports, else sm.ca and sm.port (empty and 0: the first usable; the config
// checks that sm.port_guid excludes them).
std::pair<std::string, int> sm_port(const config::Config& cfg);

// The node GUIDs listed in routing.root_guid_file; config::ConfigError
// naming the key and the fix when the file cannot be read.
std::vector<Guid> read_root_guid_file(const std::string& path);

// node_name_map's names; config::ConfigError naming the key, file and line.
std::shared_ptr<const topology::NodeNameMap> read_node_name_map(const std::string& path);

// Everything the bring-up takes, the partitions' rules (effective_rules:
// with the default partition's) and part_enforce included. Reads
// routing.root_guid_file, OpenSM's GUID files (routing.cn_guid_file,
// io_guid_file, guid_routing_order_file) and node_name_map; a file that
// cannot be read or has a bad line is a config::ConfigError naming key, file
// and line. Throws it too when the qos policy's VLs alone exceed what
// routing.max_vls lets the ports carry.
BringupSettings bringup_settings(const config::Config& cfg);

// The partition rules the SM runs on: `partitions` (or the file's) after
// the default partition's implicit rules, as OpenSM.
std::vector<partition::Rule> partition_rules(const config::Config& cfg);

// smp.* and perf.window: the transport's window, timeout and retries.
mad::TransportOptions transport_options(const config::Config& cfg);

// sm.priority as SMInfo carries it (4 bits), for the SMInfo responder, the
// election and a reload.
std::uint8_t sm_priority(const config::Config& cfg);

ElectionSettings election_settings(const config::Config& cfg, Guid port_guid);

SchedulerSettings scheduler_settings(const config::Config& cfg);

PerfSettings perf_settings(const config::Config& cfg);

// The health section as the policy's rules (health/health_policy.h).
health::HealthPolicy health_policy(const config::Config& cfg);

// The SA agent's: sm.sm_key makes requests carrying it trusted.
SaSettings sa_settings(const config::Config& cfg);

// `mft_width`: MFT blocks in flight, as many as the bring-up's LFT blocks.
McastSettings mcast_settings(const config::Config& cfg, std::size_t mft_width);

// security.mkey: off, or the key ring from the secret file (root-only; a
// refused or malformed file is the string, naming the file).
std::variant<MkeySettings, std::string> mkey_settings(const config::Config& cfg);

// The control socket's path (control/socket_rules.h): control.socket, else
// the runtime directory systemd gives (`runtime_directory`, null outside
// systemd), else state_dir (made absolute) with control.sock.
std::string control_socket(const config::Config& cfg, const char* runtime_directory);

} // namespace ibsm::daemon
