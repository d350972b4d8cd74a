// ibsm: the offline command-line tool over the same libraries the daemon
// uses. main only parses (tools/ibsm_cli.h), dispatches to a subcommand and
// turns exceptions into the exit statuses of cli/app.h: 64 for usage errors,
// 1 for everything else.
#include "config/config.h"
#include "tools/ibsm_cli.h"

#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    using namespace ibsm;
    std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
    if (args.size() == 1 && args[0] == "help") args[0] = "--help"; // as before CLI11
    tools::IbsmCli ibsm_cli;
    if (auto exit_code = cli::parse(ibsm_cli.app(), args)) return *exit_code;
    auto [run, parsed] = ibsm_cli.selected(args);
    std::string name = "ibsm";
    for (const auto& c : parsed.command()) name += " " + c;
    try {
        return run(parsed);
    } catch (const tools::UsageError& e) {
        std::cerr << name << ": " << e.what() << " (see: " << name << " --help)\n";
        return cli::exit_usage;
    } catch (const config::ConfigError& e) {
        std::cerr << name << ": " << e.what() << '\n';
        return cli::exit_config;
    } catch (const std::exception& e) {
        std::cerr << name << ": " << e.what() << '\n';
        return cli::exit_failure;
    }
}
