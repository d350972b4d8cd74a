// PortInfo fields a port answers a Set without storing.
//
// Why: some SMAs (ibsim's among them) take the LID, LMC, MasterSMLID and
// OperationalVLs of a PortInfo Set but answer it with VLHighLimit,
// SubnetTimeout, MasterSMSL or M_KeyLeasePeriod as they were. Sending the
// Set again changes nothing; comparing desired with read-back would re-send
// it at every heavy sweep and the confirmed fabric would claim values the
// port does not hold.
//
// Data structures: per (node GUID, port, field) the value the SM asked for
// and the value the port kept (desired vs confirmed).
//
// Algorithm: after a Set, if the answer differs from the desired PortInfo
// only in these fields (everything else matched), each differing field is
// recorded and a message returned the first time for that port, field and
// asked value; the desired PortInfo takes what the port holds. When a plan
// is made, a port still holding the kept value for the same asked value is
// asked for what it keeps (no Set); a new asked value (a reloaded policy)
// drops the record, so the port is tried once more. Pure: no I/O; the
// caller logs the messages and keeps the records in the state directory
// (text(), parse()).
#pragma once

#include "mad/port_info.h"
#include "mad/types.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace ibsm::daemon {

class KeptPortFields {
public:
    // The fields checked, in message order.
    enum class Field : std::uint8_t { vl_high_limit, subnet_timeout, master_sm_sl, mkey_lease_period };

    // For a plan: `desired` takes the kept value of every recorded field
    // the port (`current`) still holds for the same asked value.
    void apply(Guid node, std::uint8_t port, const mad::PortInfo& current, mad::PortInfo& desired);

    struct Message {
        std::string text; // "keeps VLHighLimit 0, the policy's 4 is not applied"
        // The policy's value (VLHighLimit) is lost: worth a warning. The
        // SM's own defaults (ibsim keeps none of them) are information.
        bool warn = false;
    };
    // After a Set answered with `got`: records the fields the port did not
    // take (only when all else matched `desired`), sets them in `desired`
    // to what the port holds, and returns one message per newly recorded
    // field.
    std::vector<Message> note(Guid node, std::uint8_t port, const mad::PortInfo& got, mad::PortInfo& desired);

    // The value a port keeps for `field`, if recorded.
    std::optional<unsigned> kept(Guid node, std::uint8_t port, Field field) const;

    // The records as text, one per line: "0xGUID PORT FIELD ASKED HELD"
    // (FIELD as named in the messages), for the state directory: a new
    // process (a restart) then knows what the ports keep without a Set to
    // each to find out. parse() reads it back; a line it cannot read
    // throws std::invalid_argument("LINE: what"), and the caller keeps
    // nothing of the file (at worst one Set per port finds out again).
    std::string text() const;
    static KeptPortFields parse(const std::string& text);
    bool empty() const { return kept_.empty(); }
    // Counts the changes to the records: the caller writes text() only when
    // it moved (rendering 165 888 records at 27 648 hosts to compare them
    // cost every re-route 20 ms and the text a copy in memory).
    std::uint64_t revision() const { return revision_; }

private:
    struct Kept {
        unsigned asked = 0;
        unsigned held = 0;
    };
    std::map<std::tuple<Guid, std::uint8_t, Field>, Kept> kept_;
    std::uint64_t revision_ = 0;
};

} // namespace ibsm::daemon
