// Loads a MAD captured by tests/tools/capture_smp from tests/data/mad: '#'
// comment lines, then 256 bytes as whitespace-separated hex pairs.
#pragma once

#include "mad/smp.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef IBSM_MAD_TEST_DATA_DIR
#error "IBSM_MAD_TEST_DATA_DIR must name tests/data/mad"
#endif

namespace ibsm::mad::test {

inline Smp load_captured(const std::string& name)
{
    const std::string path = std::string(IBSM_MAD_TEST_DATA_DIR) + "/" + name;
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": cannot open");
    std::vector<std::uint8_t> bytes;
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::string w;
        while (words >> w) {
            if (w.size() != 2 || !std::isxdigit(static_cast<unsigned char>(w[0])) ||
                !std::isxdigit(static_cast<unsigned char>(w[1])))
                throw std::runtime_error(path + ":" + std::to_string(line_no) + ": '" + w + "' is not a hex byte");
            bytes.push_back(static_cast<std::uint8_t>(std::stoul(w, nullptr, 16)));
        }
    }
    if (bytes.size() != mad_size)
        throw std::runtime_error(path + ": " + std::to_string(bytes.size()) + " bytes, expected 256");
    return Smp::from_bytes(bytes);
}

} // namespace ibsm::mad::test
