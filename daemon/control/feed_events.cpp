#include "daemon/control/feed_events.h"

#include <type_traits>
#include <variant>

namespace ibsm::daemon::control {

namespace {

using Json = nlohmann::json;

// The LID a trap is about, when its details name one (0: the issuer's).
Lid subject_lid(const mad::Notice& n)
{
    return std::visit(
        [&](const auto& d) -> Lid {
            using D = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<D, mad::LinkStateChangeDetails> || std::is_same_v<D, mad::PortErrorDetails> ||
                          std::is_same_v<D, mad::LocalChangesDetails>)
                return d.lid.value() ? d.lid : n.issuer_lid;
            else
                return n.issuer_lid;
        },
        n.details);
}

} // namespace

std::string outcome_word(const SweepOutcome& o)
{
    if (o.standby) return "standby";
    if (o.unchanged) return "unchanged";
    if (o.up) return o.degraded ? "degraded" : "up";
    return o.generation == 0 ? "failed" : "down";
}

void publish_event(EventFeed& feed, const Event& e)
{
    if (const auto* t = std::get_if<TrapEvent>(&e)) {
        feed.publish("trap", Json{{"number", t->notice.trap_number_or_device_id},
                                  {"issuer_lid", t->issuer.value()},
                                  {"lid", subject_lid(t->notice).value()}});
    } else if (const auto* p = std::get_if<PortStateChangeEvent>(&e)) {
        feed.publish("port-state-change", Json{{"switch_guid", p->switch_guid.str()}});
    } else if (const auto* h = std::get_if<HeavySweepEvent>(&e)) {
        feed.publish("sweep-requested", Json{{"heavy", true}, {"reason", h->reason}});
    } else if (const auto* l = std::get_if<LightSweepEvent>(&e)) {
        feed.publish("sweep-requested", Json{{"heavy", false}, {"reason", l->reason}});
    } else if (std::holds_alternative<ReloadEvent>(e)) {
        feed.publish("reload");
    } else if (std::holds_alternative<RetryEvent>(e)) {
        feed.publish("retry");
    }
}

void publish_mkey_violation(EventFeed& feed, Lid issuer, const mad::BadMkeyDetails& b, const std::string& source)
{
    feed.publish("mkey-violation", Json{{"lid", issuer.value()},
                                        {"method", b.method},
                                        {"attribute", b.attr_id},
                                        {"modifier", b.attr_mod},
                                        {"source", source}});
}

void publish_mkey_incident(EventFeed& feed, const MkeyIncident& i, bool lease_wait)
{
    feed.publish("mkey-incident", Json{{"port_guid", i.port.str()},
                                       {"switch", i.is_switch},
                                       {"where", i.where},
                                       {"what", i.what},
                                       {"lease_wait", lease_wait}});
}

void publish_outcome(EventFeed& feed, const SweepOutcome& o)
{
    Json changes{{"links_down", o.changes.links_down},   {"links_up", o.changes.links_up},
                 {"nodes_new", o.changes.nodes_new},     {"nodes_lost", o.changes.nodes_lost},
                 {"ports_changed", o.changes.ports_changed}, {"text", o.changes.text}};
    feed.publish("sweep", Json{{"kind", o.kind == SweepKind::heavy ? "heavy sweep" : "re-route"},
                               {"outcome", outcome_word(o)},
                               {"generation", o.generation},
                               {"seconds", o.seconds},
                               {"smps", o.smps},
                               {"lft_blocks_sent", o.lft_blocks_sent},
                               {"reason", o.reason},
                               {"changes", std::move(changes)}});
    for (const auto& c : o.partition_changes) {
        using K = partition::PartitionChange::Kind;
        feed.publish("partition", Json{{"pkey", c.pkey},
                                       {"name", c.name},
                                       {"change", c.kind == K::added ? "added" : c.kind == K::removed ? "removed" : "changed"},
                                       {"joined", c.joined},
                                       {"left", c.left},
                                       {"to_full", c.to_full},
                                       {"to_limited", c.to_limited},
                                       {"groups_changed", c.groups_changed},
                                       {"generation", o.generation},
                                       {"text", c.text()}});
    }
}

void publish_sm_state(EventFeed& feed, const std::string& from, const std::string& to, const std::string& why)
{
    feed.publish("sm-state", Json{{"from", from}, {"to", to}, {"reason", why}});
}

} // namespace ibsm::daemon::control
