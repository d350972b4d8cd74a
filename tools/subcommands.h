// Entry points of the ibsm subcommands, one source file each. A subcommand
// gets the arguments after its name, returns the exit status, and throws
// UsageError (tools/args.h) for a bad command line. To add one, declare it
// here and add a row to the table in ibsm_main.cpp.
#pragma once

#include <string>
#include <vector>

namespace ibsm::tools {

int topogen_main(const std::vector<std::string>& args);
int analyze_main(const std::vector<std::string>& args);
int route_main(const std::vector<std::string>& args);
int topodiff_main(const std::vector<std::string>& args);
int status_main(const std::vector<std::string>& args);

} // namespace ibsm::tools
