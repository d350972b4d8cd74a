// ibsm: the offline command-line tool over the same libraries the daemon
// uses. main only dispatches to a subcommand and turns exceptions into exit
// codes: 2 for usage errors, 1 for everything else.
#include "tools/args.h"
#include "tools/subcommands.h"

#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Subcommand {
    std::string_view name;
    std::string_view summary;
    int (*run)(const std::vector<std::string>&);
};

constexpr Subcommand subcommands[] = {
    {"topogen", "generate a fabric (PGFT, k-ary n-tree, ring, torus) as an ibnetdiscover/ibsim net file",
     ibsm::tools::topogen_main},
    {"route", "assign LIDs and route a net file with an engine chain; write LFTs as dump_fts text", ibsm::tools::route_main},
    {"topodiff", "compare two topology files: nodes, port counts and links by GUID", ibsm::tools::topodiff_main},
    {"analyze", "score forwarding tables: reachability, credit loops, EBB, shifts, hops", ibsm::tools::analyze_main},
    {"status", "state of the running ibsmd from its state directory (state.json)", ibsm::tools::status_main},
};

void usage(std::ostream& out)
{
    out << "usage: ibsm <command> [options]   (ibsm <command> --help for details)\n\ncommands:\n";
    for (const auto& s : subcommands) out << "  " << s.name << std::string(12 - s.name.size(), ' ') << s.summary << '\n';
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        usage(std::cerr);
        return 2;
    }
    std::string_view cmd = argv[1];
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
        usage(std::cout);
        return 0;
    }
    for (const auto& s : subcommands) {
        if (s.name != cmd) continue;
        std::vector<std::string> args(argv + 2, argv + argc);
        try {
            return s.run(args);
        } catch (const ibsm::tools::UsageError& e) {
            std::cerr << "ibsm " << cmd << ": " << e.what() << "\n(see: ibsm " << cmd << " --help)\n";
            return 2;
        } catch (const std::exception& e) {
            std::cerr << "ibsm " << cmd << ": " << e.what() << '\n';
            return 1;
        }
    }
    std::cerr << "ibsm: unknown command '" << cmd << "'\n";
    usage(std::cerr);
    return 2;
}
