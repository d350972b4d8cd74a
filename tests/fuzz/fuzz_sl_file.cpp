// libFuzzer harness for the SL file reader (routing/sl_file.h): any text
// reads or throws SlFileError, over the fabric of tests/data/routing/
// 2sw2path4hca.net.
#include "routing/sl_file.h"
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
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        (void)ibsm::routing::read_sl_file(in, "fuzz", fabric());
    } catch (const ibsm::routing::SlFileError&) {
    }
    return 0;
}
