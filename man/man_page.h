// Manual pages of the two programs, written from their CLI11 declarations
// (the same App objects --help prints), so a flag cannot be in one and
// missing from the other.
#pragma once

#include "cli/app.h"

#include <string>
#include <vector>

namespace ibsm::man {

struct PageInfo {
    std::string name;                    // "ibsmd"
    int section = 1;                     // 8 for the daemon
    std::string title;                   // .TH's centre header, e.g. "System Administration"
    std::string summary;                 // the NAME line after "ibsmd \-"
    std::string synopsis;                // roff
    std::vector<cli::ExitStatus> exit_statuses;
    std::string extra_sections;          // roff: FILES, SIGNALS, SEE ALSO ...
};

// The page: NAME, SYNOPSIS, DESCRIPTION (the app's description), OPTIONS
// (by group, each with what it needs and excludes), COMMANDS (every
// subcommand with its options; options every kind of a command shares are
// listed once), EXIT STATUS, then extra_sections.
std::string program_page(const CLI::App& app, const PageInfo& info);

} // namespace ibsm::man
