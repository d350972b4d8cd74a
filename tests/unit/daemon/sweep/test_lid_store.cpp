// The guid2lid file: round trip, absent ports kept, atomic replacement.
#include "../support/one_switch.h"

#include "daemon/sweep/lid_store.h"
#include "lidassign/base_lids.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace ibsm;
using ibsm::test::OneSwitch;

TEST_CASE("the LID store round-trips, keeps absent ports' LIDs and replaces the file atomically", "[lidstore]")
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("ibsmd-lidstore-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    daemon::LidStore store(dir);
    CHECK(store.load().empty()); // no file yet

    OneSwitch s(0);
    auto& f = s.found.fabric;
    f.set_port_guid({topology::NodeId{0}, PortNum(1)}, Guid(0x101));
    auto assigned = lidassign::assign_base_lids(f, {}, {});
    lidassign::GuidLidMap previous{{Guid(0x999), Lid(77)}};
    store.save(f, assigned.lids, previous);

    auto loaded = store.load();
    CHECK(loaded.size() == 3);
    CHECK(loaded.at(Guid(0x101)) == assigned.lids.lids_of({topology::NodeId{0}, PortNum(1)})->base);
    CHECK(loaded.at(Guid(0x999)) == Lid(77));
    for (const auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().filename() == "guid2lid");

    std::ofstream(dir / "guid2lid") << "0x0000000000000101 zebra 0x0001\n";
    CHECK_THROWS_WITH(store.load(), Catch::Contains("guid2lid:1"));
    fs::remove_all(dir);
}
