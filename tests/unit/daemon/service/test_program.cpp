// ibsmd from its command line to its exit status (daemon/service/program.h):
// each failure found before the SM touches the fabric ends the start with
// its tier's status and one line, and the SM is never served: a bad command
// line 64, a bad configuration 78 naming the file and key, a refused M_Key
// secret file 1 before the state directory is made, a port that is not
// there 1 after it.
#include "../support/temp_dir.h"
#include "daemon/service/program.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ibsm;
namespace fs = std::filesystem;

namespace {

// One stream redirected for the life of the object.
class Capture {
public:
    explicit Capture(std::ostream& s) : stream_(s), previous_(s.rdbuf(text_.rdbuf())) {}
    ~Capture() { stream_.rdbuf(previous_); }
    std::string text() const { return text_.str(); }

private:
    std::ostream& stream_;
    std::ostringstream text_;
    std::streambuf* previous_;
};

struct Run {
    int status = -1;
    int served = 0;
    std::string err, out;
};

Run ibsmd(std::vector<std::string> args)
{
    args.insert(args.begin(), "ibsmd");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    Run r;
    Capture err(std::cerr), out(std::cout);
    r.status = daemon::run_ibsmd(static_cast<int>(args.size()), argv.data(), [&](daemon::SmStart&) {
        ++r.served;
        return 0;
    });
    r.err = err.text();
    r.out = out.text();
    return r;
}

void write(const fs::path& p, const std::string& text, fs::perms perms = fs::perms::owner_read | fs::perms::owner_write)
{
    std::ofstream(p) << text;
    fs::permissions(p, perms);
}

} // namespace

TEST_CASE("ibsmd: a bad command line is 64, --print-config prints and is 0, neither serves", "[service][program]")
{
    auto bad = ibsmd({"--no-such-flag"});
    CHECK(bad.status == cli::exit_usage);
    CHECK(bad.served == 0);

    auto printed = ibsmd({"--print-config", "--config", "none"});
    CHECK(printed.status == 0);
    CHECK(printed.served == 0);
    CHECK(printed.out.find("state_dir:") != std::string::npos);
}

TEST_CASE("ibsmd: a bad configuration is 78 with the file, line and key", "[service][program]")
{
    test::TempDir dir;
    const auto file = dir.path / "ibsmd.yaml";
    write(file, "state_dir: " + (dir.path / "state").string() + "\nsweep:\n  intervall_s: 5\n");
    auto r = ibsmd({"--once", "--log-level", "off", "--config", file.string()});
    CHECK(r.status == cli::exit_config);
    CHECK(r.served == 0);
    INFO(r.err);
    CHECK(r.err.starts_with("ibsmd: " + file.string() + ":3:"));
    CHECK(r.err.find("intervall_s") != std::string::npos);
}

TEST_CASE("ibsmd: a refused M_Key secret file is 1, found before the state directory and the port",
          "[service][program][mkey]")
{
    REQUIRE(geteuid() == 0); // the secret file is checked for being root's alone
    test::TempDir dir;
    const auto secret = dir.path / "mkey.secret";
    write(secret, "000102030405060708090a0b0c0d0e0f\n",
          fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    const auto state = dir.path / "state";
    const auto file = dir.path / "ibsmd.yaml";
    write(file, "state_dir: " + state.string() + "\nsecurity:\n  mkey: {mode: per-port, secret_file: " +
                    secret.string() + "}\n");
    auto r = ibsmd({"--once", "--log-level", "off", "--config", file.string()});
    CHECK(r.status == cli::exit_failure);
    CHECK(r.served == 0);
    INFO(r.err);
    CHECK(r.err.starts_with("ibsmd: security.mkey.secret_file: " + secret.string() + " has mode 0644"));
    CHECK_FALSE(fs::exists(state));
}

TEST_CASE("ibsmd: a port that is not there is 1, after the state directory was checked", "[service][program]")
{
    test::TempDir dir;
    const auto state = dir.path / "state";
    const auto file = dir.path / "ibsmd.yaml";
    write(file, "state_dir: " + state.string() + "\nlog:\n  level: off\nsm:\n  ca: ibsmd_test_no_such_ca\n");
    auto r = ibsmd({"--once", "--log-level", "off", "--config", file.string()});
    CHECK(r.status == cli::exit_failure);
    CHECK(r.served == 0);
    INFO(r.err);
    CHECK(r.err.find("ibsmd_test_no_such_ca") != std::string::npos);
    CHECK(fs::is_directory(state));
}
