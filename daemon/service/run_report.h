// What ibsmd logs about its own run: at start, where the SM runs and on
// which configuration; at exit, the totals of what reached it unasked and
// of what its SA did, and why it exits.
//
// Why: each kind of unsolicited or malformed MAD is logged once, when first
// seen (the transport, the SMInfo responder); the totals at exit say how
// many followed, without a line per MAD. Operators and the integration
// tests read these lines: their text does not change lightly.
#pragma once

#include "config/config.h"
#include "daemon/core/mkey_book.h"
#include "daemon/sa/sa_agent.h"
#include "daemon/service/options.h"
#include "daemon/sm/sm_info_responder.h"
#include "mad/transport.h"
#include "mad/umad_port.h"

namespace ibsm::daemon {

// The SM's port, engines, LMC and state directory; the configuration file
// read; M_Key protection when on (never a key: the secret's fingerprint).
void log_start(const Options& opts, const config::Config& cfg, const mad::PortAttributes& port,
               const MkeySettings& mkeys);

// Inbound MADs (transport and SMInfo responder) and the SA's counts.
void log_totals(const mad::TransportCounters& transport, const SmInfoCounters& responder, const SaCounters& sa);

// The last line: a signal, or --once's exit status (0 up, 2 degraded, else not up).
void log_exit(bool signalled, int exit_code);

} // namespace ibsm::daemon
