// What the control socket's commands do to the running SM (docs/operations.md,
// "Live control"): the handlers the control wing's dispatcher calls
// (control/dispatcher.h), over the wings that act.
//
// Why here: behind each command is a decision of the service's (which
// sweep a resweep asks for, the words of the answer, whether an M_Key
// rotation asks for a sweep); kept out of the composition root they are
// unit-tested without a socket. The control wing knows none of these wings.
//
// Data structures: ControlWings, the wings the handlers read and act on;
// the handlers hold references to them, which must outlive the server.
//
// The commands:
//   status        the status reporter's live status as state.json's object
//                 (publish/status.h: state_object), never through text
//   ports         the health monitor's rows, each as state.json has it
//   port isolate  the health monitor's isolate/clear, its answer as it is
//   resweep       a HeavySweepEvent with --heavy, else a LightSweepEvent,
//                 each naming the command as its reason
//   log-level     the log's level from now on, logged at the new level
//   mkey rotate   the secret file read again under the running
//                 configuration (mkey_rotation.h); a rotation that starts
//                 queues the heavy sweep that carries it out
//   mkey show     the key book's view of one port
//   drain         the drains' drain (maint/drains.h): done, refused with
//                 what would be cut off, or with dry_run the prediction
//   undrain       the drains' undrain
//   ports         (above) with drained links shown isolated (Drains::mark)
#pragma once

#include "config/config.h"
#include "daemon/control/dispatcher.h"
#include "daemon/core/events.h"
#include "daemon/core/mkey_book.h"
#include "daemon/health/health_monitor.h"
#include "daemon/maint/drains.h"
#include "daemon/publish/status.h"
#include "daemon/sweep/bringup.h"
#include "whatif/whatif.h"

#include <functional>

namespace ibsm::daemon {

struct ControlWings {
    std::function<DaemonStatus()> status; // StatusReporter::live
    HealthMonitor& health;
    EventQueue& events;
    MkeyBook& mkeys;
    // The running configuration (Reloader::running(): a reload replaces it
    // in place), read at every rotation.
    const config::Config& running;
    // The drains (null: this daemon takes no drain commands).
    Drains* drains = nullptr;
};

control::ControlHandlers control_handlers(const ControlWings& wings);

// The handlers' decisions, each on its own.
std::string request_resweep(EventQueue& events, bool heavy);
control::LevelChange change_log_level(config::LogLevel level);
control::PortActionResult rotate_mkeys_now(MkeyBook& book, const config::Config& running, EventQueue& events);
control::MkeyPortView mkey_port_view(const MkeyBook& book, Guid port_guid);
// How the bring-up routes, for a drain's dry run: its chain and the engines'
// options with its LMC (the QoS budget aside: the dry run gives the engines
// routing.max_vls).
whatif::Setup drain_setup(const BringupSettings& s);
// The drains as the status shows them.
std::vector<StatusDrain> drain_status(const Drains& drains);

} // namespace ibsm::daemon
