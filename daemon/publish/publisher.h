// What the SM publishes after each piece of work (docs/design.md, "The path
// of an event"): the generation's dump files, the snapshot the SA answers
// from with the InformInfo notices it implies, the multicast trees. One
// publisher holds the fan-out rules and the order in which every reader of
// an outcome hears of it; the scheduler hands it every outcome.
//
// Why: not every outcome brings a generation a reader may see. A re-route
// that changed nothing, or a sweep that was not up, leaves the last snapshot
// current (its generation is not the outcome's), and while another SM is
// master this SM's SA must not answer at all. The rules are a pure decision,
// tested on its own; the Publisher only carries them out.
//
// Data structures: PublishDecision, one field per reader.
//
// Rules ("fresh": the snapshot is the outcome's own generation):
//  - dumps: fresh and not unchanged, up or not (a failed bring-up's
//    generation is what the operator wants to read);
//  - SA: standing by -> withdrawn (another SM runs the subnet and its SA);
//    up and fresh -> published, and InformInfo subscribers are told of the
//    endports gained and lost since the previous one (traps 64/65); else
//    kept: the SA answers from the last generation the switches confirmed;
//  - multicast: up, fresh, not unchanged and not standing by: the trees
//    are recomputed over the new fabric (McastService::on_snapshot).
//
// Order (on_outcome): the counter poller and the health monitor first,
// since the dumps draw what they make of the generation (report.html's link
// checks); then the dumps, the SA and multicast; then systemd and the
// status, which ends summary.txt and so must follow the dumps; the events
// feed last, so a follower hears of a sweep once the status has it.
#pragma once

#include "daemon/core/subnet.h"
#include "daemon/core/sweep_outcome.h"
#include "daemon/publish/dump_writer.h"
#include "daemon/sa/mcast_service.h"
#include "daemon/sa/sa_agent.h"
#include "daemon/sa/sa_inform.h"

#include <cstdint>
#include <functional>

namespace ibsm::daemon {

enum class SaAction : std::uint8_t {
    keep,     // answer from the snapshot published before
    publish,  // answer from this one; notify InformInfo subscribers of the difference
    withdraw, // answer nothing: another SM is master
};

struct PublishDecision {
    bool dumps = false;
    SaAction sa = SaAction::keep;
    bool mcast = false;
};

// `snap`: the scheduler's current snapshot (may be null).
PublishDecision decide_publish(const SweepOutcome& o, const SubnetSnapshot* snap);

using OutcomeReader = std::function<void(const SweepOutcome&, const SnapshotPtr&)>;

// The outcome's other readers, called in this order around the publisher's
// own (see the header); each may be unset.
struct OutcomeReaders {
    OutcomeReader counters; // the counter poller: the generation's ports
    OutcomeReader health;   // the health monitor: link checks the dumps draw
    OutcomeReader notifier; // systemd's STATUS=
    OutcomeReader status;   // the status reporter: state.json, summary.txt's end
    OutcomeReader feed;     // the events feed
};

class Publisher {
public:
    Publisher(DumpWriter& dumps, SaAgent& sa, InformRegistry& inform, McastService& mcast,
              OutcomeReaders readers = {})
        : dumps_(dumps), sa_(sa), inform_(inform), mcast_(mcast), readers_(std::move(readers))
    {
    }

    // A scheduler outcome observer (SweepScheduler::on_outcome): every
    // reader in the header's order.
    void on_outcome(const SweepOutcome& o, const SnapshotPtr& snap);

private:
    void publish(const SweepOutcome& o, const SnapshotPtr& snap);

    DumpWriter& dumps_;
    SaAgent& sa_;
    InformRegistry& inform_;
    McastService& mcast_;
    OutcomeReaders readers_;
};

} // namespace ibsm::daemon
