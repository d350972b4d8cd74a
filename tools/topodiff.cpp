// `ibsm topodiff A.net B.net`: do two topology files describe the same
// fabric? Exit 0 when equal, 2 (partial, cli/app.h) with one line per
// difference otherwise; 1 stays for a file that cannot be read.
#include "cli/app.h"
#include "tools/args.h"
#include "tools/subcommands.h"
#include "topology/compare.h"
#include "topology/netfile_file.h"

#include <iostream>

namespace ibsm::tools {

namespace {

int topodiff_main(const Args& args)
{
    const auto& files = args.positional();
    if (files.size() != 2) throw UsageError("expected exactly two topology files");
    auto a = topology::load_net_file(files[0]);
    auto b = topology::load_net_file(files[1]);
    auto d = topology::compare(a, b, !args.has("ignore-descriptions"));
    std::cout << "A: " << files[0] << ": " << d.nodes_a << " nodes, " << d.links_a << " links\n"
              << "B: " << files[1] << ": " << d.nodes_b << " nodes, " << d.links_b << " links\n";
    for (const auto& line : d.differences) std::cout << line << '\n';
    std::cout << (d.equal() ? "equal\n" : std::to_string(d.differences.size()) + " difference(s)\n");
    return d.equal() ? cli::exit_ok : cli::exit_partial;
}

} // namespace

const CommandSpec& topodiff_command()
{
    static const CommandSpec spec{
        "topodiff",
        "compare two topology files: nodes, port counts and links by GUID",
        "Compares nodes (GUID, type, port count, description) and links (GUID and port of both ends).\n"
        "Exit status 0 when equal, 2 when they differ.\n",
        {{"ignore-descriptions", "", "do not compare node descriptions"}},
        "A.net B.net",
        "the two topology files (ibnetdiscover / ibsim net format)",
        {},
        topodiff_main,
    };
    return spec;
}

} // namespace ibsm::tools
