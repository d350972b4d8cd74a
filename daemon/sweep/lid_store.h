// The persistent LID assignment: OpenSM's guid2lid format in the state
// directory, read at start-up and rewritten (atomically) after every
// assignment, so a restarted daemon gives every port the LID it had.
#pragma once

#include "lidassign/base_lids.h"
#include "lidassign/lid_map.h"
#include "topology/fabric.h"

#include <filesystem>
#include <string>

namespace ibsm::daemon {

class LidStore {
public:
    explicit LidStore(std::filesystem::path state_dir) : file_(std::move(state_dir) / "guid2lid") {}

    const std::filesystem::path& file() const { return file_; }

    // Empty when the file does not exist yet. Throws std::runtime_error
    // ("FILE:LINE: what") for a malformed file: silently dropping it would
    // renumber the fabric.
    lidassign::GuidLidMap load() const;

    // Replaces the file with `lids` (atomic: temp, fsync, rename). Entries of
    // `previous` whose GUIDs are absent from the fabric are kept, so a port
    // that is down during this sweep gets its LID back when it returns.
    void save(const topology::Fabric& fabric, const lidassign::LidMap& lids,
              const lidassign::GuidLidMap& previous) const;

private:
    std::filesystem::path file_;
};

} // namespace ibsm::daemon
