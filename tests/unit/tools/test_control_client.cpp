// Which control socket the live commands of ibsm talk to
// (tools/control_client.h): --socket as given; else the one the daemon's
// state.json names; else ibsmd's own default for that state directory,
// DIR/control.sock, so `ibsm --state-dir DIR` reaches a foreground ibsmd
// run on DIR before (or without) its state.json.
#include "tools/control_client.h"

#include "daemon/publish/status.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace ibsm;
namespace fs = std::filesystem;

namespace {

tools::Args args(tools::Args::Given given) { return tools::Args({"status"}, std::move(given), {}, {}); }

struct Dir {
    fs::path path = fs::temp_directory_path() / ("ibsm-test-control-client-" + std::to_string(::getpid()));
    Dir()
    {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~Dir() { fs::remove_all(path); }
};

} // namespace

TEST_CASE("ibsm finds the socket of the ibsmd on --state-dir, with or without its state.json", "[tools][control]")
{
    ::unsetenv("RUNTIME_DIRECTORY"); // as outside systemd
    Dir dir;
    const auto state = dir.path / "a";
    fs::create_directories(state);
    // No state.json yet: ibsmd's default for that directory.
    CHECK(tools::control_socket_of(args({{"state-dir", state.string()}})) == (state / "control.sock").string());
    // A relative --state-dir: the same absolute path ibsmd uses.
    const auto cwd = fs::current_path();
    fs::current_path(dir.path);
    CHECK(tools::control_socket_of(args({{"state-dir", "a"}})) == (state / "control.sock").string());
    fs::current_path(cwd);
    // The daemon's state.json names its socket: that one.
    daemon::DaemonStatus s;
    s.control_socket = "/run/elsewhere/control.sock";
    std::ofstream(state / "state.json") << daemon::to_state_json(s);
    CHECK(tools::control_socket_of(args({{"state-dir", state.string()}})) == "/run/elsewhere/control.sock");
    CHECK(tools::control_socket_of(args({{"socket", "/srv/x.sock"}})) == "/srv/x.sock");
    CHECK_THROWS_AS(tools::control_socket_of(args({{"socket", "/srv/x.sock"}, {"state-dir", state.string()}})),
                    tools::UsageError);
}
