// ComponentMask matching (IBA 15.2.4): a record answers a query when every
// component the mask selects holds the same bits in both. The record's
// component table (records.h) says where each component lies.
#pragma once

#include "mad/sa/records.h"

#include <cstdint>
#include <span>

namespace ibsm::mad::sa {

// False when the mask selects a component the record does not have (a bit
// at or beyond the table's size): the SA answers ERR_REQ_INVALID.
bool mask_valid(ComponentTable table, std::uint64_t mask);

// True when every selected component of `candidate` equals the query's.
// Both spans must cover the record (the table's last component).
bool matches(ComponentTable table, std::uint64_t mask, std::span<const std::uint8_t> query,
             std::span<const std::uint8_t> candidate);

// The record length a table spans, in bytes.
std::size_t table_bytes(ComponentTable table);

} // namespace ibsm::mad::sa
