#include "tools/ibsm_cli.h"

#include "tools/subcommands.h"

#include <CLI/CLI.hpp>

namespace ibsm::tools {

struct IbsmCli::Node {
    CLI::App* app = nullptr;
    const CommandSpec* spec = nullptr;
    std::vector<std::string> path;
    int (*run)(const Args&) = nullptr;
    std::vector<std::string> positional;
};

const std::vector<cli::ExitStatus>& exit_statuses()
{
    static const std::vector<cli::ExitStatus> table{
        {cli::exit_ok, "success; topodiff: the files describe the same fabric"},
        {cli::exit_failure, "failure: a file cannot be read or written, route: no engine produced tables; the live "
                            "commands: ibsmd is not running, the caller is not root, or the daemon refused"},
        {cli::exit_partial, "partial: route wrote tables that failed verification (DEGRADED); analyze "
                            "--fail-on-problem found unreachable pairs or loops; topodiff found differences; "
                            "status: the subnet is up but degraded"},
        {cli::exit_usage, "bad command line"},
        {cli::exit_config, "status --config: the configuration file cannot be read or is not valid; import-opensm: "
                           "a file has no ibsmd equivalent or a bad line (named with its line)"},
    };
    return table;
}

IbsmCli::IbsmCli()
    : app_(std::make_unique<CLI::App>("ibsm: offline companion of ibsmd over the same libraries: generate fabrics, "
                                      "route them, compare topologies and score forwarding tables."))
{
    cli::setup(*app_, "ibsm");
    app_->require_subcommand(1);
    for (const CommandSpec* spec :
         {&topogen_command(), &route_command(), &topodiff_command(), &analyze_command(), &status_command(),
          &report_command(), &ports_command(), &port_command(), &resweep_command(), &log_level_command(),
          &events_command(), &mkey_command(), &import_opensm_command(), &whatif_command(),
          &drain_command(), &undrain_command()})
        add(*app_, *spec, {spec->name}, spec->run);
    app_->footer(cli::exit_status_text(exit_statuses()));
}

IbsmCli::~IbsmCli() = default;

void IbsmCli::add(CLI::App& parent, const CommandSpec& spec, std::vector<std::string> path, int (*run)(const Args&))
{
    auto node = std::make_unique<Node>();
    node->spec = &spec;
    node->path = path;
    node->run = spec.run ? spec.run : run;
    CLI::App* sub = parent.add_subcommand(spec.name, spec.summary);
    node->app = sub;
    sub->footer(spec.description); // also when empty: CLI11 would inherit the parent's
    for (const auto& o : spec.options) {
        CLI::Option* opt = o.takes_value() ? sub->add_option("--" + o.name, o.help)->type_name(o.value_name)
                                           : sub->add_flag("--" + o.name)->description(o.help);
        if (o.required) opt->required();
        if (o.repeatable) opt->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
    if (!spec.positional.empty())
        sub->add_option("args", node->positional, spec.positional_help)->type_name(spec.positional);
    if (!spec.subcommands.empty()) sub->require_subcommand(1);
    nodes_.push_back(std::move(node));
    for (const auto& kind : spec.subcommands) {
        auto kind_path = path;
        kind_path.push_back(kind.name);
        add(*sub, kind, kind_path, nodes_.back()->run);
    }
}

std::pair<int (*)(const Args&), Args> IbsmCli::selected(const std::vector<std::string>& argv) const
{
    const Node* chosen = nullptr;
    for (const auto& n : nodes_)
        if (n->app->parsed() && (!chosen || n->path.size() > chosen->path.size())) chosen = n.get();
    if (!chosen) throw UsageError("no command given");
    Args::Given given;
    for (const auto& o : chosen->spec->options) {
        const CLI::Option* opt = chosen->app->get_option("--" + o.name);
        if (opt->count() == 0) continue;
        if (o.repeatable) {
            for (const auto& r : opt->results()) given.emplace_back(o.name, r);
            continue;
        }
        std::optional<std::string> v;
        if (o.takes_value() && !opt->results().empty()) v = opt->results().front();
        given.emplace_back(o.name, std::move(v));
    }
    return {chosen->run, Args(chosen->path, std::move(given), chosen->positional, argv)};
}

} // namespace ibsm::tools
