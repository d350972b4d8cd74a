#include "daemon/service/signal_actions.h"

namespace ibsm::daemon {

void ReloadSequence::operator()() const
{
    notifier.reloading();
    reloader.reload();
    events.push(ReloadEvent{});
}

void StopSequence::operator()() const
{
    notifier.stopping();
    control.stop();
    scheduler.stop();
    transport.stop();
}

} // namespace ibsm::daemon
