// ibsm's command line: the subcommands' declarations (tools/subcommands.h)
// as one CLI11 App. ibsm_main parses with it; cli/gen_docs.cpp walks the
// same App to write ibsm(1) and the bash completion.
#pragma once

#include "cli/app.h"
#include "tools/args.h"

#include <memory>
#include <string>
#include <vector>

namespace ibsm::tools {

class IbsmCli {
public:
    IbsmCli();
    ~IbsmCli();
    IbsmCli(const IbsmCli&) = delete;
    IbsmCli& operator=(const IbsmCli&) = delete;

    CLI::App& app() { return *app_; }

    // After a successful parse of `argv` (the arguments after "ibsm"): the
    // subcommand's function and what it was given.
    std::pair<int (*)(const Args&), Args> selected(const std::vector<std::string>& argv) const;

private:
    struct Node;
    void add(CLI::App& parent, const CommandSpec& spec, std::vector<std::string> path, int (*run)(const Args&));

    std::unique_ptr<CLI::App> app_;
    std::vector<std::unique_ptr<Node>> nodes_;
};

// Exit statuses of ibsm, for --help and the man page.
const std::vector<cli::ExitStatus>& exit_statuses();

} // namespace ibsm::tools
