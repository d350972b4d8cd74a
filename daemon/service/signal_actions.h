// What SIGHUP and SIGINT/SIGTERM do to the running SM; SignalHandler
// (signals.h) runs them after its log line.
//
// Why here: each is a sequence whose order is the point, kept out of the
// composition root and tested with the wings themselves.
//
// reload (SIGHUP): systemd hears RELOADING=1 first, so `systemctl reload`
//   waits for the sweep below; the Reloader reads the configuration again,
//   decides and applies (reload.h); then a ReloadEvent asks for a heavy
//   sweep whatever the decision was (as OpenSM's SIGHUP), whose outcome
//   tells systemd READY=1 again.
// stop (SIGINT, SIGTERM): systemd hears STOPPING=1; the control socket
//   closes, so no command queues work behind the stop; the scheduler ends
//   the work in progress at once; the transport fails every SMP still
//   pending, so the loop runs out of work and ends.
#pragma once

#include "daemon/control/control_server.h"
#include "daemon/core/events.h"
#include "daemon/service/reload.h"
#include "daemon/service/service_notifier.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "mad/transport.h"

namespace ibsm::daemon {

struct ReloadSequence {
    ServiceNotifier& notifier;
    Reloader& reloader;
    EventQueue& events;
    void operator()() const;
};

struct StopSequence {
    ServiceNotifier& notifier;
    control::ControlServer& control;
    SweepScheduler& scheduler;
    mad::Transport& transport;
    void operator()() const;
};

} // namespace ibsm::daemon
