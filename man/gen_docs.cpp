// gen_docs: writes the manual pages ibsmd(8), ibsm(1), ibsmd.yaml(5) and the
// bash completion of both programs, at build time (man/meson.build), from
// the same declarations the programs parse with (daemon/service/options.cpp,
// tools/ibsm_cli.cpp) and from the sample configuration checked against the
// schema (man/config_page.h). Nothing here lists a flag or a key by hand.
//
// usage: gen_docs SAMPLE_YAML IBSMD_8 IBSM_1 IBSMD_YAML_5 IBSMD_BASH IBSM_BASH
#include "config/config.h"
#include "config/engines.h"
#include "daemon/service/config_path.h"
#include "daemon/service/options.h"
#include "man/completion.h"
#include "man/config_page.h"
#include "man/man_page.h"
#include "tools/ibsm_cli.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

namespace {

using namespace ibsm;

void write(const std::string& path, const std::string& text)
{
    std::ofstream out(path);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

man::Choices choices()
{
    man::Choices c;
    // ibsmd --engine and ibsm route --engine take a chain; one name completes.
    c["E[,E2...]"] = std::vector<std::string>(config::known_engines.begin(), config::known_engines.end());
    std::vector<std::string> levels;
    std::istringstream in(config::known_log_levels_text());
    for (std::string l; std::getline(in, l, '|');) levels.push_back(l);
    c["LEVEL"] = levels;
    c["B"] = {"global", "local"}; // ibsm route --balancing
    return c;
}

// FILES names this build's paths: the installed default configuration
// (daemon/service/config_path.h) and the default state directory.
std::string ibsmd_extra()
{
    const std::string state = config::Config{}.state_dir;
    return std::string(R"(.SH SIGNALS
.TP
.B SIGHUP
re-read the configuration file and run a heavy sweep; a file with errors, or a change to a key that
needs a restart, is refused with one log line and the running configuration stays.
.TP
.B SIGUSR1
reopen the log file (for logrotate).
.TP
.BR SIGTERM ", " SIGINT
stop, mid-sweep included.
.SH FILES
.TP
.I )") + daemon::default_config_file() + R"(
the configuration, read when present and no \fB\-\-config\fR is given; see \fBibsmd.yaml\fR(5).
.TP
.I )" + state + R"(/guid2lid
the LID of every port, kept across restarts (OpenSM's format); a corrupt file is moved aside as
\fIguid2lid.corrupt\-<time>\fR and the LIDs the ports carry are kept.
.TP
.IR )" + state + R"(/lfts.dump ", " topology.net ", " summary.txt ", " sl.txt
dumps written after each sweep that configured the fabric (the \fBdump\fR section of the configuration).
.SH ERRORS
Every start-up failure ends with one log line that names what is wrong and what to do, and the exit
status above. In the service, problems after start-up (timeouts, unreachable nodes, engine refusals,
a subnet not up) are logged and retried at the next sweep; only the start-up ends the process.
.SH SEE ALSO
.BR ibsm (1),
.BR ibsmd.yaml (5),
.BR opensm (8),
.BR ibnetdiscover (8),
.BR dump_fts (8)
)";
}

const char* ibsm_extra = R"(.SH SEE ALSO
.BR ibsmd (8),
.BR ibsmd.yaml (5),
.BR ibnetdiscover (8),
.BR dump_fts (8),
.BR ibsim (1)
)";

} // namespace

int main(int argc, char** argv)
{
    if (argc != 7) {
        std::cerr << "usage: gen_docs SAMPLE_YAML IBSMD_8 IBSM_1 IBSMD_YAML_5 IBSMD_BASH IBSM_BASH\n";
        return 64;
    }
    try {
        daemon::Options options;
        auto ibsmd = daemon::make_cli(options);
        tools::IbsmCli ibsm;

        man::PageInfo d;
        d.name = "ibsmd";
        d.section = 8;
        d.title = "System Administration";
        d.summary = "InfiniBand subnet manager";
        d.synopsis = "\\fBibsmd\\fR [\\fB\\-\\-once\\fR | \\fB\\-\\-foreground\\fR | \\fB\\-\\-discover\\-only\\fR | "
                     "\\fB\\-\\-print\\-config\\fR] [\\fIoptions\\fR]";
        d.exit_statuses = daemon::exit_statuses();
        d.extra_sections = ibsmd_extra();
        write(argv[2], man::program_page(*ibsmd, d));

        man::PageInfo t;
        t.name = "ibsm";
        t.section = 1;
        t.title = "User Commands";
        t.summary = "generate, route, compare and score InfiniBand fabrics offline";
        t.synopsis = "\\fBibsm\\fR \\fIcommand\\fR [\\fIoptions\\fR]";
        t.exit_statuses = tools::exit_statuses();
        t.extra_sections = ibsm_extra;
        write(argv[3], man::program_page(ibsm.app(), t));

        write(argv[4], man::config_page(read(argv[1]), argv[1]));
        write(argv[5], man::bash_completion(*ibsmd, choices()));
        write(argv[6], man::bash_completion(ibsm.app(), choices()));
    } catch (const std::exception& e) {
        std::cerr << "gen_docs: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
