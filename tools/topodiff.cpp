// `ibsm topodiff A.net B.net`: do two topology files describe the same
// fabric? Exit 0 when equal, 1 with one line per difference otherwise.
#include "tools/args.h"
#include "tools/subcommands.h"
#include "topology/compare.h"
#include "topology/netfile_file.h"

#include <iostream>

namespace ibsm::tools {

int topodiff_main(const std::vector<std::string>& argv)
{
    Args args(argv, {{"help", false}, {"ignore-descriptions", false}}, /*allow_positional=*/true);
    if (args.has("help")) {
        std::cout << "usage: ibsm topodiff [--ignore-descriptions] A.net B.net\n"
                     "Compares nodes (GUID, type, port count, description) and links (GUID and port of both ends).\n";
        return 0;
    }
    const auto& files = args.positional();
    if (files.size() != 2) throw UsageError("expected exactly two topology files");
    auto a = topology::load_net_file(files[0]);
    auto b = topology::load_net_file(files[1]);
    auto d = topology::compare(a, b, !args.has("ignore-descriptions"));
    std::cout << "A: " << files[0] << ": " << d.nodes_a << " nodes, " << d.links_a << " links\n"
              << "B: " << files[1] << ": " << d.nodes_b << " nodes, " << d.links_b << " links\n";
    for (const auto& line : d.differences) std::cout << line << '\n';
    std::cout << (d.equal() ? "equal\n" : std::to_string(d.differences.size()) + " difference(s)\n");
    return d.equal() ? 0 : 1;
}

} // namespace ibsm::tools
