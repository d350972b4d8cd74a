// libFuzzer harness for the dump_fts reader (routing/lft_dump.h): any text
// parses or throws LftDumpError, and what parses is turned into tables over
// the fabric the seed dumps were taken from (tests/data/routing/
// 2sw2path4hca.net), which again may only throw LftDumpError.
#include "routing/lft_dump.h"
#include "topology/netfile_reader.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#ifndef IBSM_FUZZ_DATA_DIR
#error "IBSM_FUZZ_DATA_DIR must name tests/data"
#endif

namespace {

const ibsm::topology::Fabric& fabric()
{
    static const ibsm::topology::Fabric f = [] {
        std::ifstream in(IBSM_FUZZ_DATA_DIR "/routing/2sw2path4hca.net");
        return ibsm::topology::read_net(in, "2sw2path4hca.net");
    }();
    return f;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace ibsm::routing;
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        const auto dumps = parse_dump_fts(in, "fuzz");
        (void)tables_from_dump(dumps, fabric(), "fuzz");
    } catch (const LftDumpError&) {
    }
    return 0;
}
