// `ibsm import-opensm`: an OpenSM site's files as one ibsmd.yaml.
//
// Why: opensm.conf and qos-policy.conf have no counterpart ibsmd reads
// (partitions.conf, the node-name-map and the GUID files it reads as they
// are); this writes their settings in ibsmd's terms, lists at the top every
// opensm.conf key that did not carry over and why, and refuses, with file and
// line, what qos-policy.conf says that ibsmd cannot. The output is
// describe() of the resulting configuration (what --print-config shows), so
// the daemon loads it as written.
#include "cli/app.h"
#include "config/describe.h"
#include "config/opensm_conf.h"
#include "config/opensm_qos.h"
#include "daemon/core/atomic_file.h"
#include "tools/args.h"
#include "tools/subcommands.h"
#include "topology/node_map_file.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace ibsm::tools {

namespace {

constexpr const char* description = R"(Reads OpenSM's configuration and writes an ibsmd.yaml that ibsmd loads:
  --conf         opensm.conf (as `opensm -c FILE` writes it): every key with an
                 ibsmd equivalent becomes that key; every key without one is
                 listed at the top of the output as a comment saying why
  --qos-policy   qos-policy.conf: port-groups, qos-levels, qos-match-rules and
                 qos-ulps become `qos:`; what has no equivalent is refused with
                 its file and line (without it, opensm.conf's qos_policy_file
                 is read when its qos is TRUE)
  --partitions   partitions.conf: ibsmd reads it as it is, so the output names it
                 (partitions_file:); its partition names serve qos-policy.conf's
                 `partition:` port groups
  --node-name-map  infiniband-diags' node-name-map, read as it is (node_name_map:)
The GUID files opensm.conf names (root_guid_file, cn_guid_file, io_guid_file,
guid_routing_order_file) and its node_name_map_name are named as they are and
checked here. docs/operations.md, "Coming from OpenSM", goes through each file.
)";

std::ifstream open(const std::string& path, const std::string& what)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + what + " '" + path + "'");
    return in;
}

// A file the configuration names must parse, or the daemon would refuse it.
void check_node_map_file(const std::string& path, const std::string& key, bool names,
                         std::vector<std::string>& notes)
{
    std::ifstream in(path);
    if (!in) {
        notes.push_back(key + " '" + path + "' cannot be read here; ibsmd reads it at start");
        return;
    }
    try {
        if (names)
            topology::parse_node_name_map(in, path);
        else
            topology::parse_guid_file(in, path);
    } catch (const std::runtime_error& e) {
        throw config::ConfigError(key + ": " + e.what());
    }
}

void comment_block(std::ostream& out, const std::string& title, const std::vector<std::string>& lines)
{
    if (lines.empty()) return;
    out << "#\n# " << title << "\n";
    for (const auto& l : lines) out << "#   " << l << "\n";
}

int import_main(const Args& args)
{
    if (!args.has("conf") && !args.has("qos-policy") && !args.has("partitions") && !args.has("node-name-map"))
        throw UsageError("give at least one of --conf, --qos-policy, --partitions, --node-name-map");
    config::OpensmConf conf;
    std::vector<std::string> sources, untranslated, adapted, qos_notes, file_notes;
    if (auto path = args.value("conf")) {
        auto in = open(*path, "opensm.conf");
        conf = config::import_opensm_conf(in, *path);
        sources.push_back("opensm.conf " + *path);
        for (const auto& n : conf.untranslated)
            untranslated.push_back(*path + ":" + std::to_string(n.line) + ": " + n.key + " " + n.value + ": " + n.why);
        for (const auto& n : conf.adapted)
            adapted.push_back(*path + ":" + std::to_string(n.line) + ": " + n.key + " " + n.value + ": " + n.why);
    }
    config::Config& cfg = conf.config;

    std::map<std::string, std::uint16_t> partition_names;
    const auto partitions = args.value("partitions");
    if (partitions) {
        auto in = open(*partitions, "partitions file");
        partition_names = config::partition_names(in);
        sources.push_back("partitions.conf " + *partitions);
    } else if (conf.partition_config_file) {
        file_notes.push_back("opensm.conf's partition_config_file " + *conf.partition_config_file +
                             " is not named in the output: give it with --partitions");
    }

    std::optional<std::string> qos_file = args.value("qos-policy");
    if (!qos_file) qos_file = conf.qos_policy_file;
    if (qos_file) {
        auto in = open(*qos_file, "qos-policy.conf");
        auto q = config::import_opensm_qos(in, *qos_file, partition_names);
        // opensm.conf's qos_* tables (already in cfg.qos) stay beside the policy.
        q.qos.sl2vl_ca = cfg.qos.sl2vl_ca;
        q.qos.sl2vl_switch = cfg.qos.sl2vl_switch;
        q.qos.sl2vl_switch_port0 = cfg.qos.sl2vl_switch_port0;
        q.qos.vlarb_ca = cfg.qos.vlarb_ca;
        q.qos.vlarb_switch = cfg.qos.vlarb_switch;
        cfg.qos = std::move(q.qos);
        qos_notes = std::move(q.notes);
        sources.push_back("qos-policy.conf " + *qos_file);
    }

    if (auto names = args.value("node-name-map")) {
        cfg.node_name_map = *names;
        sources.push_back("node-name-map " + *names);
    }
    if (cfg.node_name_map) check_node_map_file(*cfg.node_name_map, "node_name_map", true, file_notes);
    for (auto [key, path] : {std::pair{"routing.root_guid_file", &cfg.routing.root_guid_file},
                             std::pair{"routing.cn_guid_file", &cfg.routing.cn_guid_file},
                             std::pair{"routing.io_guid_file", &cfg.routing.io_guid_file},
                             std::pair{"routing.guid_routing_order_file", &cfg.routing.guid_routing_order_file}})
        if (*path) check_node_map_file(**path, key, false, file_notes);

    // What ibsmd will load: a combination it refuses (a VL of opensm.conf's
    // qos_* tables above max_op_vls's VLs, say) is refused here, by its key.
    const std::string yaml = config::describe(cfg);
    try {
        config::parse_config(yaml, "the imported configuration");
    } catch (const config::ConfigError& e) {
        throw config::ConfigError(std::string(e.what()) + " (ibsmd would refuse the result; fix the source files)");
    }

    std::ostringstream out;
    out << "# ibsmd.yaml written by `ibsm import-opensm` from:\n";
    for (const auto& s : sources) out << "#   " << s << "\n";
    comment_block(out, "opensm.conf keys without an ibsmd equivalent (not carried over):", untranslated);
    comment_block(out, "opensm.conf keys taken with a difference:", adapted);
    comment_block(out, "qos-policy.conf:", qos_notes);
    comment_block(out, "files:", file_notes);
    out << "\n" << yaml << "\n";
    // Read by ibsmd as OpenSM reads it (docs/operations.md, "Coming from OpenSM").
    if (partitions) out << "partitions_file: " << *partitions << "\n";

    if (auto path = args.value("out")) {
        daemon::write_file_atomically(*path, out.str());
        std::cerr << "wrote " << *path << ": " << untranslated.size() << " opensm.conf key(s) without an equivalent, "
                  << cfg.qos.rules.size() << " QoS rule(s)\n";
    } else {
        std::cout << out.str();
    }
    return cli::exit_ok;
}

} // namespace

const CommandSpec& import_opensm_command()
{
    static const CommandSpec spec{
        "import-opensm",
        "write an ibsmd.yaml from OpenSM's opensm.conf, qos-policy.conf, partitions.conf and node-name-map",
        description,
        {
            {"conf", "FILE", "opensm.conf"},
            {"qos-policy", "FILE", "qos-policy.conf"},
            {"partitions", "FILE", "partitions.conf, named as partitions_file: in the output"},
            {"node-name-map", "FILE", "infiniband-diags' node-name-map, named as node_name_map: in the output"},
            {"out", "FILE", "where to write ibsmd.yaml (replaced atomically; default: standard output)"},
        },
        "",
        "",
        {},
        import_main,
    };
    return spec;
}

} // namespace ibsm::tools
