#include "daemon/publish/publisher.h"

namespace ibsm::daemon {

PublishDecision decide_publish(const SweepOutcome& o, const SubnetSnapshot* snap)
{
    const bool fresh = snap && snap->generation == o.generation;
    PublishDecision d;
    d.dumps = !o.unchanged && fresh;
    if (o.standby)
        d.sa = SaAction::withdraw;
    else if (o.up && fresh)
        d.sa = SaAction::publish;
    d.mcast = !o.standby && !o.unchanged && o.up && fresh;
    return d;
}

void Publisher::on_outcome(const SweepOutcome& o, const SnapshotPtr& snap)
{
    auto tell = [&](const OutcomeReader& reader) {
        if (reader) reader(o, snap);
    };
    tell(readers_.counters);
    tell(readers_.health);
    publish(o, snap);
    tell(readers_.notifier);
    tell(readers_.status);
    tell(readers_.feed);
}

void Publisher::publish(const SweepOutcome& o, const SnapshotPtr& snap)
{
    const PublishDecision d = decide_publish(o, snap.get());
    if (d.dumps) dumps_.publish(snap);
    switch (d.sa) {
    case SaAction::keep:
        break;
    case SaAction::publish: {
        auto before = sa_.snapshot();
        sa_.publish(snap);
        inform_.on_snapshot(before, snap); // traps 64/65 to subscribers
        break;
    }
    case SaAction::withdraw:
        sa_.publish(nullptr);
        break;
    }
    if (d.mcast) mcast_.on_snapshot(snap);
}

} // namespace ibsm::daemon
