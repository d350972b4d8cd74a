// libFuzzer harness for the path file reader (routing/path_file.h): any
// text reads or throws PathFileError (the reader needs no fabric).
#include "routing/path_file.h"

#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        (void)ibsm::routing::read_path_file(in, "fuzz");
    } catch (const ibsm::routing::PathFileError&) {
    }
    return 0;
}
