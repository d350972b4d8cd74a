// bash completion scripts written from the programs' CLI11 declarations,
// like the man pages: flags per (sub)command, subcommand names, and values
// where the set is known (files, directories, listed choices).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ibsm::man {

// Values offered after an option, by the option's value name (type_name):
// {"LEVEL", {"trace", ...}}. FILE-like names (FILE, NET, NETFILE, DUMPFILE)
// complete file names, DIR directory names; others nothing.
using Choices = std::map<std::string, std::vector<std::string>>;

std::string bash_completion(const CLI::App& app, const Choices& choices);

} // namespace ibsm::man
