// libFuzzer harness for the net-file reader (topology/netfile_reader.h):
// any text either reads into a Fabric or throws ParseError; nothing else
// may escape (an uncaught exception aborts and libFuzzer reports it).
//
// Round trip: what was read, written back with the writer and read again,
// is the same fabric (GUIDs, types, port counts, links), and writing that
// gives the same text again. Descriptions are compared through the text:
// the writer turns quotes and control characters into '_' on purpose
// (netfile_writer.h), so only the first writing may change them.
#include "topology/compare.h"
#include "topology/netfile_reader.h"
#include "topology/netfile_writer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace ibsm::topology;
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    Fabric fabric;
    try {
        fabric = read_net(in, "fuzz");
    } catch (const ParseError&) {
        return 0;
    }
    std::ostringstream out;
    write_net(out, fabric);
    std::istringstream again(out.str());
    Fabric back;
    try {
        back = read_net(again, "written");
    } catch (const ParseError& e) {
        std::fprintf(stderr, "written file refused: %s\n%s", e.what(), out.str().c_str());
        std::abort(); // the writer produced a file the reader refuses
    }
    if (const auto diff = compare(fabric, back, /*compare_descriptions=*/false); !diff.equal()) {
        for (const auto& d : diff.differences) std::fprintf(stderr, "round trip: %s\n", d.c_str());
        std::abort();
    }
    std::ostringstream out_again;
    write_net(out_again, back);
    if (out_again.str() != out.str()) {
        std::fprintf(stderr, "written twice, differs:\n%s\n---\n%s", out.str().c_str(), out_again.str().c_str());
        std::abort();
    }
    return 0;
}
