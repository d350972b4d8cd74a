// `ibsm report --health FILE` (tools/health_file.h): the rows of a file
// `ibsm ports --json` wrote; a missing file, broken JSON or a bad value is an
// error naming the file and, for a bad value, its JSON path.
#include "tools/health_file.h"

#include "health/port_health_json.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

using namespace ibsm;

namespace {

std::string write_temp(const std::string& name, const std::string& text)
{
    const auto path = std::filesystem::temp_directory_path() / ("ibsm-health-" + std::to_string(::getpid()) + "-" + name);
    std::ofstream(path) << text;
    return path.string();
}

std::string error_of(const std::string& path)
{
    try {
        tools::read_health_file(path);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("read_health_file reads what ibsm ports --json prints", "[tools][health]")
{
    health::PortHealth row;
    row.id = {Guid(0x2c90200000001), PortNum(3)};
    row.node_desc = "leaf 1";
    row.state = health::HealthState::reported;
    row.reasons = {"symbol_errors 12 > 10"};
    const std::string path = write_temp("good.json", health::ports_to_json({row}).dump(2));
    const auto rows = tools::read_health_file(path);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].id == row.id);
    CHECK(rows[0].state == health::HealthState::reported);
    CHECK(rows[0].reasons == row.reasons);
    std::filesystem::remove(path);
}

TEST_CASE("read_health_file errors name the file and the JSON path", "[tools][health]")
{
    const std::string missing = (std::filesystem::temp_directory_path() / "ibsm-health-no-such-file.json").string();
    CHECK(error_of(missing) == missing + ": cannot open");

    const std::string broken = write_temp("broken.json", "{\"ports\": [");
    CHECK(error_of(broken).rfind(broken + ": ", 0) == 0);

    const std::string bad = write_temp("bad.json", R"({"ports": [{"node_guid": "0x1", "port": 1},
                                                                 {"node_guid": "0x2", "port": "three"}]})");
    const std::string e = error_of(bad);
    CHECK(e.rfind(bad + ": ", 0) == 0);
    CHECK(e.find("ports[1].port") != std::string::npos);

    const std::string not_ports = write_temp("other.json", R"({"state": "up"})");
    CHECK(error_of(not_ports).rfind(not_ports + ": ", 0) == 0);
    for (const auto& p : {broken, bad, not_ports}) std::filesystem::remove(p);
}
