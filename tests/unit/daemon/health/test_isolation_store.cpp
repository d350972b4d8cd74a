// The isolations kept in the state directory: what is saved is what a
// restart loads, a file that cannot be read is moved aside and reported
// (never thrown: the SM starts with no isolation), and a save that cannot
// be written says which file.
#include "../support/fake_fabric_support.h"

#include "daemon/health/isolation_store.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ibsm;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p)
{
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::vector<fs::path> corrupt_copies(const fs::path& dir)
{
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().starts_with("isolated_links.json.corrupt-")) out.push_back(e.path());
    return out;
}

} // namespace

TEST_CASE("isolations saved are the isolations a restart loads", "[isolation]")
{
    test::TempDir dir;
    const daemon::IsolationStore store(dir.path);
    CHECK(store.file() == dir.path / "isolated_links.json");
    // No file yet: nothing isolated, no error.
    const auto none = store.load();
    CHECK(none.isolations.empty());
    CHECK(none.error.empty());

    daemon::Isolations isolations;
    isolations[{Guid(0x0002c90300001234), PortNum(5)}] = {"flapping", "7 link-downs in 60 s", 1700000000.5};
    isolations[{Guid(0x10), PortNum(254)}] = {"operator", "isolated by ibsm port isolate", 1700000100};
    store.save(isolations);
    const auto j = nlohmann::json::parse(read(store.file()));
    CHECK(j["version"] == 1);
    REQUIRE(j["isolated"].size() == 2);
    CHECK(j["isolated"][1]["node_guid"] == "0x0002c90300001234");
    CHECK(j["isolated"][1]["port"] == 5);

    const auto loaded = daemon::IsolationStore(dir.path).load();
    CHECK(loaded.error.empty());
    CHECK(loaded.isolations == isolations);

    // Saving fewer replaces the file: a cleared link is not isolated after a restart.
    isolations.erase({Guid(0x10), PortNum(254)});
    store.save(isolations);
    CHECK(store.load().isolations == isolations);
    store.save({});
    CHECK(store.load().isolations.empty());
}

TEST_CASE("an entry without rule or reason loads as the operator's", "[isolation]")
{
    test::TempDir dir;
    const daemon::IsolationStore store(dir.path);
    write(store.file(), R"({"version": 1, "isolated": [{"node_guid": "0x00000000000000ab", "port": 3}]})");
    const auto loaded = store.load();
    CHECK(loaded.error.empty());
    REQUIRE(loaded.isolations.size() == 1);
    const auto& [id, iso] = *loaded.isolations.begin();
    CHECK(id == health::PortId{Guid(0xab), PortNum(3)});
    CHECK(iso.rule == "operator");
    CHECK(iso.reason.empty());
    CHECK(iso.since == 0);
}

TEST_CASE("a file that cannot be read is moved aside with the reason; nothing is isolated from it", "[isolation]")
{
    const std::vector<std::pair<std::string, std::string>> bad{
        {"{not json", "parse error"},
        {R"({"version": 2, "isolated": []})", "expected {\"version\": 1"},
        {R"({"version": 1})", "expected {\"version\": 1"},
        {R"([1, 2])", "expected {\"version\": 1"},
        {R"({"version": 1, "isolated": [{"node_guid": "0x0", "port": 1}]})", "bad entry"},
        {R"({"version": 1, "isolated": [{"node_guid": "ab", "port": 1}]})", "bad entry"},
        {R"({"version": 1, "isolated": [{"node_guid": "0xab", "port": 0}]})", "bad entry"},
        {R"({"version": 1, "isolated": [{"node_guid": "0xab", "port": 255}]})", "bad entry"},
        {R"({"version": 1, "isolated": [{"node_guid": "0xabz", "port": 1}]})", "bad entry"},
        {R"({"version": 1, "isolated": [{"port": 1}]})", "node_guid"},
    };
    for (const auto& [text, why] : bad) {
        INFO(text);
        test::TempDir dir;
        const daemon::IsolationStore store(dir.path);
        write(store.file(), text);
        const auto loaded = store.load();
        CHECK(loaded.isolations.empty());
        CHECK_THAT(loaded.error, Catch::StartsWith(store.file().string() + " unreadable ("));
        CHECK_THAT(loaded.error, Catch::Contains(why));
        CHECK_THAT(loaded.error, Catch::Contains("isolate the links again"));
        CHECK_FALSE(fs::exists(store.file()));
        const auto aside = corrupt_copies(dir.path);
        REQUIRE(aside.size() == 1);
        CHECK(read(aside[0]) == text); // kept for the operator
        CHECK_THAT(loaded.error, Catch::Contains("moved to " + aside[0].string()));
        // The next load starts clean.
        const auto again = store.load();
        CHECK(again.error.empty());
    }
}

TEST_CASE("a save that cannot be written throws naming the file", "[isolation]")
{
    test::TempDir dir;
    write(dir.path / "state", "a file where the state directory should be");
    const daemon::IsolationStore store(dir.path / "state");
    CHECK_THROWS_WITH(store.save({{{Guid(0xab), PortNum(1)}, {"operator", "", 0}}}),
                      Catch::Contains((dir.path / "state").string()));
}

TEST_CASE("switches not swept past are kept beside the isolations; a file without them loads as before",
          "[isolation]")
{
    test::TempDir dir;
    const daemon::IsolationStore store(dir.path);
    daemon::Isolations isolations;
    isolations[{Guid(0x11), PortNum(2)}] = {"reboot", "10 reboots", 5};
    daemon::NoDiscover skip;
    skip[Guid(0x21)] = {"noisy", "300 traps 129/130/131 within 60 s", 7};
    store.save(isolations, skip);
    const auto j = nlohmann::json::parse(read(store.file()));
    REQUIRE(j["no_discover"].size() == 1);
    CHECK(j["no_discover"][0]["node_guid"] == "0x0000000000000021");
    const auto loaded = store.load();
    CHECK(loaded.error.empty());
    CHECK(loaded.isolations == isolations);
    CHECK(loaded.no_discover == skip);

    // Without any, no key is written: the file reads as an older daemon wrote it.
    store.save(isolations);
    CHECK_FALSE(nlohmann::json::parse(read(store.file())).contains("no_discover"));
    CHECK(store.load().no_discover.empty());
    write(store.file(), R"({"version": 1, "isolated": [], "no_discover": [{"node_guid": "0x0"}]})");
    const auto bad = store.load();
    CHECK(bad.no_discover.empty());
    CHECK(bad.error.find("bad entry") != std::string::npos);
}
