// Overwrites memory that held a secret with zeros in a way the compiler
// keeps: a memset just before the memory is released or goes out of scope
// is a dead store and may be removed, explicit_bzero (glibc) never is.
#pragma once

#include <cstddef>
#include <string.h>

namespace ibsm::mkey {

inline void wipe(void* p, std::size_t n) { ::explicit_bzero(p, n); }

} // namespace ibsm::mkey
