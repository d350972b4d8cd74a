#include "daemon/core/subnet.h"

namespace ibsm::daemon {

const char* to_string(SubnetHealth h)
{
    switch (h) {
    case SubnetHealth::down: return "down";
    case SubnetHealth::up: return "up";
    case SubnetHealth::degraded: return "degraded";
    }
    return "?";
}

} // namespace ibsm::daemon
