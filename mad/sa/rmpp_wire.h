// The RMPP header on raw MAD bytes (IBA 13.6.2.1), for every class that uses
// RMPP, not only the SA: where a class's data starts, reading and writing
// the 12 RMPP bytes, and the ACK / STOP / ABORT a receiver answers with.
//
// Why raw bytes: the ibsim preload (ibsim_rmpp/) segments and reassembles
// MADs it did not build and must pass on every byte it does not own (the
// class-specific header between the RMPP header and the data included);
// decoding into SaHeader and back would lose the reserved ones.
#pragma once

#include "mad/sa/sa_mad.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace ibsm::mad::sa {

// Where the data of an RMPP class starts (IBA 13.6.2.3: the class defines
// its header; every segment repeats it). SA: 56 (15.2.1); vendor classes
// 0x30..0x4F: 40 (13.4.4.3, OUI and reserved bytes); others: right after the
// RMPP header.
std::size_t rmpp_data_offset(std::uint8_t mgmt_class);

// Bytes 24..35 of `mad` (at least 36 bytes long).
RmppHeader read_rmpp(std::span<const std::uint8_t> mad);
void write_rmpp(std::span<std::uint8_t> mad, const RmppHeader& h);

// A receiver's answer to segment traffic (IBA 13.6.3.3): the header of
// `received` (its first `data_offset` bytes) with the method's response bit
// flipped (an answer goes the other way: GetTableResp data is ACKed as
// GetTable) and the RMPP fields given; data zero.
Mad rmpp_reply(std::span<const std::uint8_t> received, std::size_t data_offset, RmppType type,
               std::uint8_t status, std::uint32_t data1, std::uint32_t data2);

} // namespace ibsm::mad::sa
