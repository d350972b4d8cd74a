#include "tools/health_file.h"

#include "health/port_health_json.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ibsm::tools {

std::vector<health::PortHealth> read_health_file(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw std::runtime_error(path + ": cannot read");
    try {
        return health::parse_ports_json(text.str());
    } catch (const health::HealthJsonError& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

} // namespace ibsm::tools
