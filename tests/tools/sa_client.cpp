// sa_client: a small SA client of our own for the tests and the benchmark,
// run as an ibsim client (SIM_HOST picks its node). Unlike saquery under
// umad2sim it reassembles RMPP answers itself and ACKs their windows, so
// multi-record GetTable answers can be checked on the simulator.
//
//   sa_client query SA_LID ATTR METHOD MASK [FIELDS] [--window W] [--lose N] [--no-ack] [--raw]
//       One request; prints "status 0x.... offset N records R segments S"
//       and one "record I HEX" line per record (--raw: "mad HEX" per
//       received MAD instead, for tests/data/sa captures).
//       METHOD: get, gettable, getmulti, set, delete. MASK: the component
//       mask. FIELDS: "BYTE:LEN:VALUE,..." sets LEN big-endian bytes of the
//       record at BYTE (VALUE decimal or 0x hex, LEN at most 8), e.g.
//       NodeRecord by LID 5: "0:2:5".
//       --window W: the NewWindowLast each ACK grants (segment + W).
//       --lose N: drop segment N the first time it arrives (the sender must
//       resend it after its timeout). --no-ack: never ACK (the sender must
//       give up with ABORT; printed as "aborted STATUS").
//   sa_client bench SA_LID LID_LO LID_HI [--outstanding K] [--seconds S]
//       PathRecord Gets (SLID/DLID) between random LIDs of [LO, HI], K kept
//       outstanding for S seconds; prints "N answered in T s = Q queries/s
//       (E errors, L lost)".
//   sa_client malformed SA_LID LID
//       Requests an SA must refuse with a status (truncated, unknown
//       attribute, bad component mask, bad class version, unknown method,
//       unknown LID, PathRecord without ends, Get with many answers) and
//       checks each status; LID is any valid LID. Exits 1 on a wrong answer.
//
// Under ibsim, umad2sim hands a client only the first 224 bytes of each
// MAD it receives (its receiver buffer holds 288 bytes, 64 of them the umad
// header) and the last 32 are whatever its heap held: bytes 168..199 of
// every segment's data. When LD_PRELOAD names umad2sim those bytes are
// printed as "??" (unknown), and the tests compare only known bytes.
//
// libumad2sim wraps open() but not open64(); see capture_smp.cpp.
#undef _FILE_OFFSET_BITS

#include "mad/sa/sa_mad.h"

#include <infiniband/umad.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace ibsm;
namespace sa = ibsm::mad::sa;

namespace {

[[noreturn]] void die(const std::string& why)
{
    std::fprintf(stderr, "sa_client: %s\n", why.c_str());
    std::fflush(stdout);
    std::_Exit(2);
}

std::string hex(const std::uint8_t* p, std::size_t n, const std::vector<bool>* known = nullptr, std::size_t from = 0)
{
    std::string s;
    char b[3];
    for (std::size_t i = 0; i < n; ++i) {
        if (known && from + i < known->size() && !(*known)[from + i]) {
            s += "??";
            continue;
        }
        std::snprintf(b, sizeof b, "%02x", p[i]);
        s += b;
    }
    return s;
}

struct Received {
    sa::Mad mad{};
    std::size_t length = 0;
    int status = 0;
};

class Port {
public:
    Port()
    {
        if (umad_init() < 0) die("umad_init failed");
        port_ = umad_open_port(nullptr, 0);
        if (port_ < 0) die("umad_open_port failed");
        agent_ = umad_register(port_, sa::mgmt_class, sa::class_version, 0, nullptr);
        if (agent_ < 0) die("umad_register(class 3) failed");
        sbuf_.resize(umad_size() + sa::mad_size);
        rbuf_.resize(umad_size() + sa::mad_size);
    }
    // No destructor closing the port: see leave().

    void send(const sa::Mad& mad, Lid sa_lid, std::size_t length = sa::mad_size)
    {
        std::memset(sbuf_.data(), 0, umad_size());
        std::memcpy(umad_get_mad(sbuf_.data()), mad.data(), length);
        umad_set_addr(sbuf_.data(), sa_lid.value(), 1, 0, static_cast<int>(sa::gsi_qkey));
        if (umad_send(port_, agent_, sbuf_.data(), static_cast<int>(length), 0, 0) < 0) die("umad_send failed");
    }

    std::optional<Received> receive(int timeout_ms)
    {
        int len = static_cast<int>(sa::mad_size);
        if (umad_recv(port_, rbuf_.data(), &len, timeout_ms) < 0) return std::nullopt;
        Received r;
        r.status = umad_status(rbuf_.data());
        r.length = len < 0 ? 0 : std::min<std::size_t>(static_cast<std::size_t>(len), sa::mad_size);
        std::memcpy(r.mad.data(), umad_get_mad(rbuf_.data()), r.length);
        return r;
    }

private:
    int port_ = -1;
    int agent_ = -1;
    std::vector<std::uint8_t> sbuf_, rbuf_;
};

std::uint8_t method_of(const std::string& m)
{
    if (m == "get") return sa::method::get;
    if (m == "gettable") return sa::method::get_table;
    if (m == "getmulti") return sa::method::get_multi;
    if (m == "set") return sa::method::set;
    if (m == "delete") return sa::method::delete_;
    if (m.starts_with("0x")) return static_cast<std::uint8_t>(std::stoul(m, nullptr, 16));
    die("unknown method " + m);
}

// "BYTE:LEN:VALUE,..." -> record bytes.
std::vector<std::uint8_t> parse_fields(const std::string& spec)
{
    std::vector<std::uint8_t> rec(sa::data_size, 0);
    std::size_t at = 0;
    while (at < spec.size()) {
        auto end = spec.find(',', at);
        if (end == std::string::npos) end = spec.size();
        const auto item = spec.substr(at, end - at);
        unsigned byte = 0, len = 0;
        char value[64] = {};
        if (std::sscanf(item.c_str(), "%u:%u:%63s", &byte, &len, value) != 3 || len == 0 || len > 8 ||
            byte + len > sa::data_size)
            die("bad field " + item);
        const std::uint64_t v = std::strtoull(value, nullptr, 0);
        for (unsigned i = 0; i < len; ++i) rec[byte + i] = static_cast<std::uint8_t>(v >> (8 * (len - 1 - i)));
        at = end + 1;
    }
    return rec;
}

sa::Mad request(std::uint8_t method, std::uint16_t attr, std::uint64_t mask, std::uint64_t tid,
                const std::vector<std::uint8_t>& rec)
{
    sa::SaHeader h;
    h.method = method;
    h.tid = tid;
    h.attr_id = attr;
    h.component_mask = mask;
    return sa::make_mad(h, rec);
}

std::uint64_t fresh_tid()
{
    static std::uint32_t n = static_cast<std::uint32_t>(
        std::chrono::steady_clock::now().time_since_epoch().count() & 0xffffff);
    return ++n;
}

bool same_tid(std::uint64_t a, std::uint64_t b) { return (a & 0xffffffffu) == (b & 0xffffffffu); }

// Whether MAD bytes from 224 on are lost (see the header).
bool simulator_truncates()
{
    const char* p = std::getenv("LD_PRELOAD");
    return p && std::strstr(p, "umad2sim") != nullptr;
}
constexpr std::size_t sim_delivered = 224;

struct Answer {
    std::uint16_t status = 0;
    std::uint16_t attr_offset = 0;
    unsigned segments = 0;
    std::vector<std::uint8_t> data;
    std::vector<bool> known; // per data byte
    std::vector<sa::Mad> mads;
    bool aborted = false;
    std::uint8_t abort_status = 0;
    bool timed_out = false;
    unsigned acks = 0;
};

struct RmppOptions {
    unsigned window = 4;
    unsigned lose = 0; // segment to drop once
    bool no_ack = false;
};

// Sends `req` and collects the answer, acting as the RMPP receiver
// (IBA 13.6.3.3): segments in order, an ACK at each window's end and at
// the last segment, the last in-order segment re-ACKed after a gap.
Answer transact(Port& port, Lid sa_lid, const sa::Mad& req, const RmppOptions& o, int timeout_ms = 3000)
{
    const auto h = *sa::decode_header(req);
    port.send(req, sa_lid);
    Answer a;
    unsigned expected = 1, window_last = 1;
    bool lost_once = false;
    auto ack = [&](const sa::SaHeader& got, unsigned seg) {
        if (o.no_ack) return;
        sa::SaHeader ah = got;
        ah.method = static_cast<std::uint8_t>(got.method & 0x7f);
        ah.status = 0;
        window_last = seg + o.window;
        ah.rmpp = sa::RmppHeader{1, sa::RmppType::ack, 0x1f, sa::rmpp_flag::active, 0, seg, window_last};
        port.send(sa::make_mad(ah), sa_lid);
        ++a.acks;
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < deadline) {
        auto r = port.receive(100);
        if (r && std::getenv("SA_CLIENT_DEBUG"))
            std::fprintf(stderr, "recv status %d length %zu (tid %llx): %s\n", r->status, r->length,
                         static_cast<unsigned long long>(h.tid), hex(r->mad.data(), 40).c_str());
        if (!r || r->status != 0) continue;
        auto got = sa::decode_header(r->mad);
        if (!got || !same_tid(got->tid, h.tid) || !(got->method & 0x80)) continue;
        a.mads.push_back(r->mad);
        a.status = got->status;
        a.attr_offset = got->attr_offset;
        // A plain GetResp, or a table answer flagged RMPP-active whose RMPP
        // header nobody filled in: OpenSM leaves that to the kernel, so
        // under umad2sim its one-MAD answers arrive as type 0, cut to their
        // length.
        if (!got->rmpp.active() || got->rmpp.type == sa::RmppType::none) {
            const std::size_t end = std::max(sa::header_size, std::min(r->length, sa::mad_size));
            a.segments = 1;
            a.data.assign(r->mad.begin() + sa::header_size, r->mad.begin() + static_cast<std::ptrdiff_t>(end));
            for (std::size_t i = sa::header_size; i < end; ++i)
                a.known.push_back(!simulator_truncates() || i < sim_delivered);
            return a;
        }
        if (got->rmpp.type == sa::RmppType::abort || got->rmpp.type == sa::RmppType::stop) {
            a.aborted = true;
            a.abort_status = got->rmpp.status;
            return a;
        }
        if (got->rmpp.type != sa::RmppType::data) continue;
        const unsigned seg = got->rmpp.data1;
        if (seg == o.lose && !lost_once) {
            lost_once = true;
            continue;
        }
        if (seg != expected) { // a gap or a repeat: confirm what we hold
            if (expected > 1) ack(*got, expected - 1);
            continue;
        }
        ++a.segments;
        const bool last = (got->rmpp.flags & sa::rmpp_flag::last) != 0;
        std::size_t take = sa::data_size;
        if (last) take = got->rmpp.data2 >= 20 ? std::min<std::size_t>(got->rmpp.data2 - 20, sa::data_size) : 0;
        a.data.insert(a.data.end(), r->mad.begin() + sa::header_size, r->mad.begin() + sa::header_size + take);
        for (std::size_t i = sa::header_size; i < sa::header_size + take; ++i)
            a.known.push_back(!simulator_truncates() || i < sim_delivered);
        ++expected;
        if (last) {
            ack(*got, seg);
            return a;
        }
        if (seg >= window_last) ack(*got, seg);
    }
    a.timed_out = true;
    return a;
}

int cmd_query(int argc, char** argv)
{
    if (argc < 6) die("usage: sa_client query SA_LID ATTR METHOD MASK [FIELDS] [options]");
    const Lid sa_lid(static_cast<std::uint16_t>(std::strtoul(argv[2], nullptr, 0)));
    const auto attr = static_cast<std::uint16_t>(std::strtoul(argv[3], nullptr, 0));
    const auto method = method_of(argv[4]);
    const std::uint64_t mask = std::strtoull(argv[5], nullptr, 0);
    std::vector<std::uint8_t> rec(sa::data_size, 0);
    RmppOptions o;
    bool raw = false;
    for (int i = 6; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--window" && i + 1 < argc) o.window = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (a == "--lose" && i + 1 < argc) o.lose = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (a == "--no-ack") o.no_ack = true;
        else if (a == "--raw") raw = true;
        else if (!a.starts_with("--")) rec = parse_fields(a);
        else die("unknown option " + a);
    }
    Port port;
    const auto ans = transact(port, sa_lid, request(method, attr, mask, fresh_tid(), rec), o,
                              o.no_ack ? 10000 : 5000);
    if (ans.timed_out) {
        std::printf("timeout after %u segments\n", ans.segments);
        return 1;
    }
    if (ans.aborted) {
        std::printf("aborted %u after %u segments\n", ans.abort_status, ans.segments);
        return 0;
    }
    const std::size_t stride = std::size_t{ans.attr_offset} * 8;
    const std::size_t count = stride ? ans.data.size() / stride : 0;
    std::printf("status 0x%04x offset %u records %zu segments %u acks %u\n", ans.status, ans.attr_offset,
                (method == sa::method::get || method == sa::method::set || method == sa::method::delete_)
                    ? (ans.status == 0 ? std::size_t{1} : std::size_t{0})
                    : count,
                ans.segments, ans.acks);
    if (raw) {
        // Captures keep only what the simulator delivered.
        const std::size_t n = simulator_truncates() ? sim_delivered : sa::mad_size;
        for (const auto& m : ans.mads) std::printf("mad %s\n", hex(m.data(), n).c_str());
        return 0;
    }
    if (ans.status != 0) return 0;
    if (method == sa::method::get || method == sa::method::set || method == sa::method::delete_) {
        std::printf("record 0 %s\n",
                    hex(ans.data.data(), std::min(ans.data.size(), stride ? stride : sa::data_size), &ans.known).c_str());
        return 0;
    }
    for (std::size_t i = 0; i < count; ++i)
        std::printf("record %zu %s\n", i, hex(ans.data.data() + i * stride, stride, &ans.known, i * stride).c_str());
    return 0;
}

int cmd_bench(int argc, char** argv)
{
    if (argc < 5) die("usage: sa_client bench SA_LID LID_LO LID_HI [--outstanding K] [--seconds S]");
    const Lid sa_lid(static_cast<std::uint16_t>(std::strtoul(argv[2], nullptr, 0)));
    const auto lo = static_cast<std::uint16_t>(std::strtoul(argv[3], nullptr, 0));
    const auto hi = static_cast<std::uint16_t>(std::strtoul(argv[4], nullptr, 0));
    unsigned outstanding = 64;
    double seconds = 5;
    for (int i = 5; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--outstanding") outstanding = static_cast<unsigned>(std::atoi(argv[i + 1]));
        else if (a == "--seconds") seconds = std::atof(argv[i + 1]);
        else die("unknown option " + a);
    }
    Port port;
    std::mt19937 rng(12345);
    std::uniform_int_distribution<unsigned> pick(lo, hi);
    using Clock = std::chrono::steady_clock;
    std::map<std::uint32_t, Clock::time_point> pending;
    std::uint32_t tid = static_cast<std::uint32_t>(Clock::now().time_since_epoch().count() & 0xffff) << 12;
    auto send_one = [&] {
        std::vector<std::uint8_t> rec(sa::data_size, 0);
        const auto s = pick(rng), d = pick(rng);
        rec[40] = static_cast<std::uint8_t>(d >> 8), rec[41] = static_cast<std::uint8_t>(d);
        rec[42] = static_cast<std::uint8_t>(s >> 8), rec[43] = static_cast<std::uint8_t>(s);
        ++tid;
        port.send(request(sa::method::get, sa::attr::path_record, (1u << 4) | (1u << 5), tid, rec), sa_lid);
        pending[tid] = Clock::now();
    };
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    std::uint64_t answered = 0, errors = 0, lost = 0;
    while (pending.size() < outstanding) send_one();
    auto last_check = start;
    auto take = [&](const std::optional<Received>& r) {
        if (!r || r->status != 0) return;
        auto h = sa::decode_header(r->mad);
        if (!h || !(h->method & 0x80)) return;
        auto it = pending.find(static_cast<std::uint32_t>(h->tid & 0xffffffffu));
        if (it == pending.end()) return;
        pending.erase(it);
        ++answered;
        if (h->status != 0) ++errors;
    };
    while (Clock::now() < end) {
        // Read what has arrived, then send the replacements together: under
        // umad2sim a send between two reads contends with its receiver
        // thread for the device lock (DEVELOPERS.md), for both SMs alike.
        take(port.receive(50));
        for (unsigned k = 0; k < outstanding / 2; ++k) {
            auto more = port.receive(0);
            if (!more) break;
            take(more);
        }
        const auto now = Clock::now();
        // Requests unanswered for a second are lost (a full queue somewhere).
        if (now - last_check > std::chrono::milliseconds(200)) {
            last_check = now;
            std::erase_if(pending, [&](const auto& kv) {
                if (now - kv.second < std::chrono::seconds(1)) return false;
                ++lost;
                return true;
            });
        }
        while (pending.size() < outstanding) send_one();
    }
    const double t = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("%llu answered in %.2f s = %.0f queries/s (%llu errors, %llu lost)\n",
                static_cast<unsigned long long>(answered), t, static_cast<double>(answered) / t,
                static_cast<unsigned long long>(errors), static_cast<unsigned long long>(lost));
    return 0;
}

int cmd_malformed(int argc, char** argv)
{
    if (argc < 4) die("usage: sa_client malformed SA_LID LID");
    const Lid sa_lid(static_cast<std::uint16_t>(std::strtoul(argv[2], nullptr, 0)));
    const auto lid = static_cast<std::uint16_t>(std::strtoul(argv[3], nullptr, 0));
    Port port;
    int failures = 0;
    auto by_lid = [&](std::uint16_t l) {
        std::vector<std::uint8_t> rec(sa::data_size, 0);
        rec[0] = static_cast<std::uint8_t>(l >> 8), rec[1] = static_cast<std::uint8_t>(l);
        return rec;
    };
    auto expect = [&](const char* name, sa::Mad m, std::uint16_t want, std::size_t length = sa::mad_size) {
        const auto h = *sa::decode_header(m);
        port.send(m, sa_lid, length);
        std::optional<std::uint16_t> got;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (!got && std::chrono::steady_clock::now() < deadline) {
            auto r = port.receive(100);
            if (!r || r->status != 0) continue;
            auto g = sa::decode_header(r->mad);
            if (g && same_tid(g->tid, h.tid) && (g->method & 0x80)) got = g->status;
        }
        const bool ok = got && *got == want;
        char seen[16] = "none";
        if (got) std::snprintf(seen, sizeof seen, "0x%04x", *got);
        std::printf("%-28s %s status %s (want 0x%04x)\n", name, ok ? "ok  " : "FAIL", seen, want);
        if (!ok) ++failures;
    };
    auto mk = [&](std::uint8_t method, std::uint16_t attr, std::uint64_t mask, std::vector<std::uint8_t> rec) {
        return request(method, attr, mask, fresh_tid(), rec);
    };
    expect("truncated (40 bytes)", mk(sa::method::get, sa::attr::node_record, 1, by_lid(lid)), sa::status::req_invalid,
           40);
    expect("truncated (120 bytes)", mk(sa::method::get, sa::attr::node_record, 1, by_lid(lid)),
           sa::status::req_invalid, 120);
    expect("unknown attribute 0xff77", mk(sa::method::get, 0xff77, 0, by_lid(lid)), sa::status::method_attr_unsupported);
    // Untrusted (SM_Key 0): the SM's records are not a host's to write.
    expect("Set of NodeRecord", mk(sa::method::set, sa::attr::node_record, 1, by_lid(lid)), sa::status::denied);
    expect("bad component mask", mk(sa::method::get, sa::attr::node_record, 1ull << 40, by_lid(lid)),
           sa::status::req_invalid);
    expect("PathRecord mask bit 30", mk(sa::method::get_table, sa::attr::path_record, 1ull << 30, by_lid(lid)),
           sa::status::req_invalid);
    auto v1 = mk(sa::method::get, sa::attr::node_record, 1, by_lid(lid));
    v1[2] = 1;
    expect("class version 1", v1, sa::status::bad_version);
    expect("method 0x03 (Send)", mk(0x03, sa::attr::node_record, 1, by_lid(lid)), sa::status::method_unsupported);
    expect("NodeRecord of LID 0xbfff", mk(sa::method::get, sa::attr::node_record, 1, by_lid(0xbfff)),
           sa::status::no_records);
    expect("Get NodeRecord, no mask", mk(sa::method::get, sa::attr::node_record, 0, by_lid(lid)),
           sa::status::too_many_records);
    expect("PathRecord without ends", mk(sa::method::get, sa::attr::path_record, 0, by_lid(lid)),
           sa::status::insufficient_components);
    std::vector<std::uint8_t> pr(sa::data_size, 0);
    pr[8] = 0xfe, pr[9] = 0x80, pr[23] = 0x77; // a GID nobody has
    pr[24] = 0xfe, pr[25] = 0x80, pr[39] = 0x78;
    expect("PathRecord of unknown GIDs", mk(sa::method::get, sa::attr::path_record, 0xc, pr), sa::status::invalid_gid);
    expect("NodeRecord Get still works", mk(sa::method::get, sa::attr::node_record, 1, by_lid(lid)), sa::status::ok);
    return failures ? 1 : 0;
}

} // namespace

// Leaves without closing the umad port: umad2sim's receiver thread hands a
// MAD that arrives after its agent was unregistered (a segment the SA
// resent while our last ACK was on its way) to a null queue and crashes
// the process; an open port just queues it until the process is gone.
[[noreturn]] void leave(int rc)
{
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(rc);
}

int main(int argc, char** argv)
{
    if (argc < 2) die("usage: sa_client query|bench|malformed ...");
    const std::string cmd = argv[1];
    if (cmd == "query") leave(cmd_query(argc, argv));
    if (cmd == "bench") leave(cmd_bench(argc, argv));
    if (cmd == "malformed") leave(cmd_malformed(argc, argv));
    die("unknown command " + cmd);
}
