// mcast_join: joins (or leaves) a multicast group the way IPoIB does, as an
// ibsim client (SIM_HOST picks its node), for tests/integration/mcast_ipoib.sh.
//
//   mcast_join join|leave [GUID_FILE] [--mgid PREFIX:IFACE] [--pkey K] [--state full|non|sendonly]
//                         [--window W] [--sa-lid L] [--expect-status S]
//       Without GUID_FILE: one SubnAdmSet(MCMemberRecord) for this port
//       (IPoIB's broadcast join: MGID, PortGID, P_Key, JoinState
//       FullMember; the P_Key is the one an IPoIB MGID carries unless
//       --pkey gives the port's own entry, e.g. a limited member's). With GUID_FILE (one port GUID per line): the same for
//       every listed port, as proxy joins from this port with ProxyJoin set
//       (so this port may end them again), W outstanding.
//       `leave` sends SubnAdmDelete instead. Prints
//       "joined N of M, MLID 0x..., Q_Key 0x..., MTU m, rate r" (or "left")
//       and exits 0 when every answer had status 0 (or, with
//       --expect-status, that status: a refusal test).
//   mcast_join members [--mgid PREFIX:IFACE] [--smkey K] [--gid GUID] [--sa-lid L]
//       SubnAdmGet(MCMemberRecord) by MGID (and PortGID with --gid): prints
//       "status 0x.... port_gid G join_state S mlid M".
//
// The SA's LID is the port's MasterSMLID unless --sa-lid gives one. Lost
// requests (no answer within 500 ms) are sent again, 5 times at most.
//
// libumad2sim wraps open() but not open64(); see capture_smp.cpp.
#undef _FILE_OFFSET_BITS

#include "mad/mc_member_record.h"
#include "mad/sa/sa_mad.h"

#include <infiniband/umad.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <endian.h>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace ibsm;
namespace sa = ibsm::mad::sa;
namespace m = ibsm::mad::mcr_mask;

namespace {

[[noreturn]] void die(const std::string& why)
{
    std::fprintf(stderr, "mcast_join: %s\n", why.c_str());
    std::exit(2);
}

struct Options {
    std::string command;
    std::optional<std::string> guid_file;
    mad::Gid128 mgid{0xff12401bffff0000ull, 0x00000000ffffffffull};
    std::uint8_t state = mad::join_state::full_member;
    unsigned window = 16;
    std::optional<std::uint16_t> sa_lid;
    std::uint16_t expect_status = 0;
    std::uint64_t sm_key = 0;
    std::optional<std::uint64_t> gid;
    std::optional<std::uint16_t> pkey;
};

class Port {
public:
    Port()
    {
        if (umad_init() < 0) die("umad_init failed");
        if (umad_get_port(nullptr, 0, &info_) < 0) die("umad_get_port failed");
        port_ = umad_open_port(nullptr, 0);
        if (port_ < 0) die("umad_open_port failed");
        agent_ = umad_register(port_, sa::mgmt_class, sa::class_version, 0, nullptr);
        if (agent_ < 0) die("umad_register(class 3) failed");
        buf_.resize(umad_size() + sa::mad_size);
    }
    // The port stays open until the process exits: umad2sim crashes a
    // client that unregisters while an answer is on its way (DEVELOPERS.md).
    ~Port() { umad_release_port(&info_); }
    std::uint64_t prefix() const { return be64toh(info_.gid_prefix); }
    std::uint64_t guid() const { return be64toh(info_.port_guid); }
    std::uint16_t sm_lid() const { return static_cast<std::uint16_t>(info_.sm_lid); }

    void send(const sa::Mad& mad, std::uint16_t lid)
    {
        std::memset(buf_.data(), 0, umad_size());
        std::memcpy(umad_get_mad(buf_.data()), mad.data(), mad.size());
        umad_set_addr(buf_.data(), lid, 1, 0, static_cast<int>(sa::gsi_qkey));
        if (umad_send(port_, agent_, buf_.data(), static_cast<int>(mad.size()), 0, 0) < 0) die("umad_send failed");
    }
    std::optional<sa::Mad> receive(int timeout_ms)
    {
        int len = static_cast<int>(sa::mad_size);
        if (umad_recv(port_, buf_.data(), &len, timeout_ms) < 0) return std::nullopt;
        if (umad_status(buf_.data()) != 0 || len < static_cast<int>(sa::header_size)) return std::nullopt;
        sa::Mad out{};
        std::memcpy(out.data(), umad_get_mad(buf_.data()), std::min<std::size_t>(static_cast<std::size_t>(len), out.size()));
        return out;
    }

private:
    umad_port_t info_{};
    int port_ = -1;
    int agent_ = -1;
    std::vector<std::uint8_t> buf_;
};

sa::Mad make_request(std::uint8_t method, std::uint64_t mask, std::uint64_t tid, std::uint64_t sm_key,
                     const mad::McMemberRecord& r)
{
    sa::SaHeader h;
    h.method = method;
    h.tid = tid;
    h.attr_id = sa::attr::mcmember_record;
    h.component_mask = mask;
    h.sm_key = sm_key;
    std::array<std::uint8_t, mad::mc_member_record_size> rec{};
    mad::encode(r, rec);
    return sa::make_mad(h, rec);
}

mad::Gid128 parse_gid(const std::string& s)
{
    auto colon = s.find(':');
    if (colon == std::string::npos) die("a GID is PREFIX:IFACE in hex, got " + s);
    return mad::Gid128{std::stoull(s.substr(0, colon), nullptr, 16), std::stoull(s.substr(colon + 1), nullptr, 16)};
}

Options parse(int argc, char** argv)
{
    if (argc < 2) die("usage: mcast_join join|leave|members [GUID_FILE] [options]");
    Options o;
    o.command = argv[1];
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) die(a + " needs a value");
            return argv[++i];
        };
        if (a == "--mgid") o.mgid = parse_gid(value());
        else if (a == "--window") o.window = static_cast<unsigned>(std::stoul(value()));
        else if (a == "--sa-lid") o.sa_lid = static_cast<std::uint16_t>(std::stoul(value(), nullptr, 0));
        else if (a == "--expect-status") o.expect_status = static_cast<std::uint16_t>(std::stoul(value(), nullptr, 0));
        else if (a == "--pkey") o.pkey = static_cast<std::uint16_t>(std::stoul(value(), nullptr, 0));
        else if (a == "--smkey") o.sm_key = std::stoull(value(), nullptr, 0);
        else if (a == "--gid") o.gid = std::stoull(value(), nullptr, 16);
        else if (a == "--state") {
            const auto s = value();
            o.state = s == "full" ? mad::join_state::full_member
                      : s == "non" ? mad::join_state::non_member
                      : s == "sendonly" ? mad::join_state::send_only_non_member
                                        : (die("unknown --state " + s), std::uint8_t{0});
        } else if (!a.starts_with("--") && !o.guid_file) o.guid_file = a;
        else die("unknown argument " + a);
    }
    return o;
}

int members(Port& port, const Options& o, std::uint16_t sa_lid)
{
    mad::McMemberRecord r;
    r.mgid = o.mgid;
    std::uint64_t mask = m::mgid;
    if (o.gid) {
        r.port_gid = mad::Gid128{port.prefix(), *o.gid};
        mask |= m::port_gid;
    }
    const std::uint64_t tid = 0x4d430000u | (static_cast<std::uint64_t>(std::rand()) & 0xffff);
    for (int attempt = 0; attempt < 5; ++attempt) {
        port.send(make_request(sa::method::get, mask, tid, o.sm_key, r), sa_lid);
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
        while (std::chrono::steady_clock::now() < until) {
            auto got = port.receive(100);
            if (!got) continue;
            auto h = sa::decode_header(*got);
            if (!h || (h->tid & 0xffffffffu) != (tid & 0xffffffffu)) continue;
            auto rec = mad::decode_mc_member_record(std::span<const std::uint8_t>(*got).subspan(sa::header_size));
            std::printf("status 0x%04x port_gid %s join_state %u mlid 0x%04x\n", h->status,
                        rec ? rec->port_gid.str().c_str() : "-", rec ? rec->join_state : 0,
                        rec ? rec->mlid.value() : 0);
            return h->status == o.expect_status ? 0 : 1;
        }
    }
    std::printf("no answer\n");
    return 1;
}

int join_or_leave(Port& port, const Options& o, std::uint16_t sa_lid)
{
    std::vector<std::uint64_t> guids;
    if (o.guid_file) {
        std::ifstream in(*o.guid_file);
        if (!in) die("cannot read " + *o.guid_file);
        std::string line;
        while (std::getline(in, line))
            if (!line.empty()) guids.push_back(std::stoull(line, nullptr, 16));
    } else {
        guids.push_back(port.guid());
    }
    const bool join = o.command == "join";
    const std::uint8_t method = join ? sa::method::set : sa::method::delete_;
    const bool proxy = o.guid_file.has_value();
    // An IPoIB MGID ff1s:401b:PKEY:... names its partition.
    const bool ipoib_mgid = ((o.mgid.prefix >> 32) & 0xffff) == 0x401b;
    const std::uint16_t pkey = o.pkey ? *o.pkey : ipoib_mgid ? static_cast<std::uint16_t>(o.mgid.prefix >> 16) : 0xffff;
    const std::uint64_t mask = m::mgid | m::port_gid | m::p_key | m::join_state | (proxy ? m::proxy_join : 0);
    struct Pending {
        std::size_t index;
        unsigned attempts;
        std::chrono::steady_clock::time_point sent;
    };
    std::map<std::uint32_t, Pending> pending;
    std::uint32_t next_tid = 0x4a000000u | static_cast<std::uint32_t>(port.guid() & 0xffff) << 8;
    std::size_t cursor = 0, ok = 0, answered = 0, lost = 0;
    std::map<std::uint16_t, std::size_t> statuses;
    std::optional<mad::McMemberRecord> sample;
    std::vector<std::string> errors;
    auto send = [&](std::size_t index, unsigned attempts) {
        mad::McMemberRecord r;
        r.mgid = o.mgid;
        r.port_gid = mad::Gid128{port.prefix(), guids[index]};
        r.p_key = pkey;
        r.join_state = o.state;
        r.proxy_join = proxy;
        const std::uint32_t tid = ++next_tid;
        port.send(make_request(method, mask, tid, 0, r), sa_lid);
        pending[tid] = Pending{index, attempts, std::chrono::steady_clock::now()};
    };
    const auto start = std::chrono::steady_clock::now();
    while (answered + lost < guids.size()) {
        while (cursor < guids.size() && pending.size() < o.window) send(cursor++, 1);
        auto got = port.receive(50);
        if (got) {
            auto h = sa::decode_header(*got);
            if (!h) continue;
            auto it = pending.find(static_cast<std::uint32_t>(h->tid & 0xffffffffu));
            if (it == pending.end()) continue;
            const auto index = it->second.index;
            pending.erase(it);
            ++answered;
            ++statuses[h->status];
            auto rec = mad::decode_mc_member_record(std::span<const std::uint8_t>(*got).subspan(sa::header_size));
            if (h->status == 0 && rec) {
                ++ok;
                if (!sample) sample = rec;
            } else if (errors.size() < 5) {
                char b[96];
                std::snprintf(b, sizeof b, "port 0x%016llx: status 0x%04x",
                              static_cast<unsigned long long>(guids[index]), h->status);
                errors.push_back(b);
            }
        }
        const auto now = std::chrono::steady_clock::now();
        for (auto it = pending.begin(); it != pending.end();) {
            if (now - it->second.sent < std::chrono::milliseconds(500)) {
                ++it;
                continue;
            }
            const auto p = it->second;
            it = pending.erase(it);
            if (p.attempts >= 5) {
                ++lost;
                continue;
            }
            send(p.index, p.attempts + 1);
        }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (sample)
        std::printf("%s %zu of %zu, MLID 0x%04x, Q_Key 0x%08x, MTU %u, rate %u, %.2f s\n", join ? "joined" : "left",
                    ok, guids.size(), sample->mlid.value(), sample->q_key, sample->mtu, sample->rate, s);
    else
        std::printf("%s 0 of %zu, %.2f s\n", join ? "joined" : "left", guids.size(), s);
    for (const auto& [status, n] : statuses) std::printf("status 0x%04x: %zu\n", status, n);
    if (lost) std::printf("unanswered: %zu\n", lost);
    for (const auto& e : errors) std::printf("  %s\n", e.c_str());
    const bool as_expected = lost == 0 && statuses.size() == 1 && statuses.begin()->first == o.expect_status;
    return as_expected ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    const Options o = parse(argc, argv);
    Port port;
    const std::uint16_t sa_lid = o.sa_lid ? *o.sa_lid : port.sm_lid();
    if (sa_lid == 0) die("the port knows no SM LID yet (give --sa-lid)");
    if (o.command == "members") return members(port, o, sa_lid);
    if (o.command == "join" || o.command == "leave") return join_or_leave(port, o, sa_lid);
    die("unknown command " + o.command);
}
