#include "daemon/sweep/lid_store.h"

#include "daemon/core/atomic_file.h"
#include "lidassign/guid2lid.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ibsm::daemon {

lidassign::GuidLidMap LidStore::load() const
{
    std::ifstream in(file_);
    if (!in) {
        std::error_code ec;
        if (!std::filesystem::exists(file_, ec)) return {};
        throw std::runtime_error("cannot read " + file_.string());
    }
    try {
        return lidassign::read_guid2lid(in, file_.string());
    } catch (const lidassign::Guid2LidError& e) {
        throw std::runtime_error(e.what());
    }
}

void LidStore::save(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                    const lidassign::GuidLidMap& previous) const
{
    std::ostringstream out;
    lidassign::write_guid2lid(out, fabric, lids);
    // Ports not in this sweep keep their reservation (same format, LMC unknown: one LID).
    for (const auto& [guid, lid] : previous) {
        if (fabric.find_port(guid) || fabric.find_node(guid) || lids.port_of(lid)) continue;
        char line[64];
        std::snprintf(line, sizeof line, "0x%016llx 0x%04x 0x%04x\n\n", static_cast<unsigned long long>(guid.value()),
                      lid.value(), lid.value());
        out << line;
    }
    write_file_atomically(file_, out.str());
}

} // namespace ibsm::daemon
