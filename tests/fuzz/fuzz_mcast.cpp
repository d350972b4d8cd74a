// libFuzzer harness for the multicast group rules (mcast/groups.h): the
// MCMemberRecords SA clients send, applied to one GroupTable.
//
// Input: records of 63 bytes: byte 0 the method (low 2 bits: 0 Set/join,
// 1 Delete/leave, 2 Get untrusted, 3 Get trusted), byte 1 the requester
// (one of 5 ports, or an unknown GUID), bytes 2..9 the component mask,
// then the 52-byte record (the codec's decoder reads it).
//
// Checks: no crash/UB; after every operation the table's invariants hold:
// MLIDs distinct, in 0xC000..mlid_top and found again by find(mlid); no
// member with JoinState 0; a group that is not permanent has a full member;
// a refused join or leave changes nothing; every answer re-encodes to a
// record the decoder reads back equal.
#include "mad/mc_member_record.h"
#include "mcast/groups.h"

#include <cstdlib>
#include <map>
#include <set>

namespace {

using namespace ibsm;

void check(bool ok)
{
    if (!ok) std::abort();
}

void invariants(const mcast::GroupTable& t, std::uint16_t top)
{
    std::set<std::uint16_t> mlids;
    for (const auto& [mgid, g] : t.groups()) {
        const auto mlid = g.params.mlid.value();
        check(mlid >= 0xC000 && mlid <= top);
        check(mlids.insert(mlid).second);
        check(t.find(g.params.mlid) == &g);
        check(g.params.mgid == mgid);
        for (const auto& [guid, m] : g.members) check(m.join_state != 0);
        check(g.permanent || g.full_members() > 0);
    }
}

std::size_t members(const mcast::GroupTable& t)
{
    std::size_t n = 0;
    for (const auto& [mgid, g] : t.groups()) n += g.members.size();
    return n;
}

void round_trip(const mad::McMemberRecord& r)
{
    std::array<std::uint8_t, mad::mc_member_record_size> b{};
    mad::encode(r, b);
    auto back = mad::decode_mc_member_record(b);
    check(back && *back == r);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    constexpr std::uint16_t top = 0xC00F; // few MLIDs: exhaustion is reachable
    std::map<Guid, mcast::PortFacts> ports{
        {Guid(0x11), {Guid(0x11), 4, 3, {0xffff, 0x8001}}},
        {Guid(0x12), {Guid(0x12), 4, 3, {0xffff, 0x0001}}},
        {Guid(0x13), {Guid(0x13), 3, 3, {0xffff}}},
        {Guid(0x14), {Guid(0x14), 5, 2, {0x7fff}}},
        {Guid(0x15), {Guid(0x15), 5, 7, {0xffff, 0x0001, 0x8002}}},
    };
    const mcast::PortLookup lookup = [&](Guid g) -> const mcast::PortFacts* {
        auto it = ports.find(g);
        return it == ports.end() ? nullptr : &it->second;
    };
    mcast::GroupTable t({0xfe80000000000000ull, top});
    t.create_permanent(mcast::ipoib_broadcast_params(0xffff));
    constexpr std::size_t rec = 63;
    for (std::size_t at = 0; at + rec <= size; at += rec) {
        const std::uint8_t* p = data + at;
        auto r = mad::decode_mc_member_record(std::span<const std::uint8_t>(p + 11, 52));
        check(r.has_value());
        std::uint64_t mask = 0;
        for (int i = 0; i < 8; ++i) mask = (mask << 8) | p[2 + i];
        const Guid requester(p[1] % 6 == 5 ? 0x99 : 0x11 + p[1] % 6);
        const auto before_groups = t.groups().size();
        const auto before_members = members(t);
        const auto before_version = t.version();
        switch (p[0] & 3) {
        case 0:
        case 1: {
            auto o = (p[0] & 3) == 0 ? t.join(*r, mask, requester, lookup) : t.leave(*r, mask, requester, lookup);
            if (o.status != mcast::SaStatus::ok) {
                check(t.groups().size() == before_groups && members(t) == before_members &&
                      t.version() == before_version);
            } else {
                round_trip(o.record);
            }
            break;
        }
        default:
            for (const auto& q : t.query(*r, mask, requester, (p[0] & 3) == 3, lookup)) round_trip(q);
            break;
        }
        invariants(t, top);
    }
    return 0;
}
