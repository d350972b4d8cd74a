#include "topology/netfile_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace ibsm::topology {

Fabric load_net_file(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw ParseError(path, 0, std::string("cannot open: ") + std::strerror(errno));
    return read_net(in, path);
}

void save_net_file(const std::string& path, const Fabric& fabric, const WriteOptions& options)
{
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
    write_net(out, fabric, options);
    out.flush();
    if (!out) throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
}

} // namespace ibsm::topology
