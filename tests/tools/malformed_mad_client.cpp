// malformed_mad_client: sends a running SM the MADs a broken or hostile
// node could send, and checks the answers against what IBA says an SM may
// or must answer. Used by tests/integration/malformed_mads.sh; run it as
// its own ibsim client on another node than the SM (SIM_HOST).
//
//   malformed_mad_client SM_LID DR-PATH-TO-SM BURST
//
// DR-PATH-TO-SM is the directed route from this node to the SM's port
// ("0,1,3,3,...,1", as smpquery -D takes it); the test gives a 31-hop one,
// the longest ibsim carries (it copies 32 bytes of the initial path).
// BURST is how many unsolicited MADs the last case sends back to back.
//
// Cases, and the answer each must get (IBA 13.4.7 status in bits 2..4;
// 14.2.1: a Get/Set the SM cannot serve may be answered with a GetResp
// and a status, anything else is dropped silently):
//   truncated       Get(SMInfo) of 24 and 100 bytes         no answer
//   base-version    base version 2                         dropped by the simulator (status 110), no GetResp
//   class-version   Get(SMInfo) class version 2            GetResp status 0x0004 "bad version"
//                   Trap class version 2                   no answer
//   sm-key          Set(SMInfo) DISABLE with a wrong SM_Key   the SM stays master; an answer carries SM_Key 0
//                   (the SM runs with the default key 0: a key is
//                   compared also when it is 0, sm_state.h)
//   unknown-attr    Get 0xFF00, Set 0x0030 (LID), Get 0xFF00 (DR)   GetResp status 0x000C
//                   method 0x03 (Send) of 0xFF00           no answer
//   dr-hops         Get(SMInfo) over the long route        GetResp, SMInfo state MASTER
//                   hop count 64 and 255                   dropped by the simulator, no GetResp
//   unknown-tid     GetResp(NodeInfo) with TIDs nobody sent   no answer
//   burst           BURST of unknown-attr Gets, truncated Gets, class-version-2
//                   Gets and Traps, unknown-TID GetResps   one GetResp per Get that gets one above
// Prints one line per case and "FAIL ..." for each broken expectation;
// exits 1 when any failed.
//
// libumad2sim wraps open() but not open64(); see capture_smp.cpp.
#undef _FILE_OFFSET_BITS

#include "mad/sm_info.h"
#include "mad/smp.h"
#include "mad/types.h"

#include <infiniband/umad.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace ibsm;

namespace {

struct Answer {
    mad::Smp smp;
    int umad_status = 0;
    std::size_t length = 0;
};

class Client {
public:
    Client()
    {
        if (umad_init() < 0) die("umad_init failed");
        port_ = umad_open_port(nullptr, 0);
        if (port_ < 0) die("umad_open_port failed");
        // No method mask: only answers to what we send come back.
        agent_lid_ = umad_register(port_, mad::mgmt_class_lid_routed, 1, 0, nullptr);
        agent_dr_ = umad_register(port_, mad::mgmt_class_directed_route, 1, 0, nullptr);
        if (agent_lid_ < 0 || agent_dr_ < 0) die("umad_register failed");
        buf_.resize(umad_size() + mad::mad_size);
    }

    // Sends the first `length` bytes of `smp` to `dlid` (DR: permissive).
    void send(const mad::Smp& smp, Lid dlid, std::size_t length = mad::mad_size)
    {
        std::memset(buf_.data(), 0, buf_.size());
        std::memcpy(umad_get_mad(buf_.data()), smp.bytes().data(), length);
        umad_set_addr(buf_.data(), smp.directed_route() ? Lid::permissive : dlid.value(), 0, 0, 0);
        const int agent = smp.mgmt_class() == mad::mgmt_class_directed_route ? agent_dr_ : agent_lid_;
        if (umad_send(port_, agent, buf_.data(), static_cast<int>(length), 0, 0) < 0) die("umad_send failed");
        ++sent_;
    }

    // What arrives until `expect` MADs have or nothing has for `quiet_ms`
    // (the SM answers within a few ms; a loaded machine needs the margin,
    // and a case that expects silence waits the whole quiet period).
    std::vector<Answer> collect(std::size_t expect, int quiet_ms = 1500)
    {
        std::vector<Answer> got;
        while (got.size() < expect || expect == 0) {
            auto a = receive(quiet_ms);
            if (!a) break;
            got.push_back(*a);
        }
        return got;
    }

    std::optional<Answer> receive(int timeout_ms)
    {
        int len = static_cast<int>(mad::mad_size);
        if (umad_recv(port_, rbuf_.data(), &len, timeout_ms) < 0) return std::nullopt;
        Answer a;
        a.umad_status = umad_status(rbuf_.data());
        a.length = len < 0 ? 0 : static_cast<std::size_t>(len);
        a.smp = mad::Smp::from_bytes(std::span<const std::uint8_t>(
            static_cast<const std::uint8_t*>(umad_get_mad(rbuf_.data())), std::min(a.length, mad::mad_size)));
        return a;
    }

    std::uint64_t sent() const { return sent_; }

private:
    [[noreturn]] static void die(const char* what)
    {
        std::fprintf(stderr, "malformed_mad_client: %s\n", what);
        std::exit(2);
    }

    int port_ = -1;
    int agent_lid_ = -1;
    int agent_dr_ = -1;
    std::vector<std::uint8_t> buf_;
    std::vector<std::uint8_t> rbuf_ = std::vector<std::uint8_t>(umad_size() + mad::mad_size);
    std::uint64_t sent_ = 0;
};

int failures = 0;

void fail(const std::string& what)
{
    std::printf("FAIL %s\n", what.c_str());
    ++failures;
}

// The low 32 bits of the TID survive (umad2sim and ibsim overwrite the rest).
std::uint32_t low(std::uint64_t tid) { return static_cast<std::uint32_t>(tid); }

// GetResps to `tid` among `got`.
std::vector<const Answer*> get_resps(const std::vector<Answer>& got, std::uint32_t tid)
{
    std::vector<const Answer*> out;
    for (const auto& a : got)
        if (a.umad_status == 0 && a.smp.method() == static_cast<std::uint8_t>(mad::Method::get_resp) &&
            low(a.smp.tid()) == tid)
            out.push_back(&a);
    return out;
}

std::size_t dropped_by_sim(const std::vector<Answer>& got, std::uint32_t tid)
{
    std::size_t n = 0;
    for (const auto& a : got)
        if (a.umad_status != 0 && low(a.smp.tid()) == tid) ++n;
    return n;
}

void expect_status(const std::vector<Answer>& got, const char* what, std::uint32_t tid, std::uint16_t status)
{
    auto r = get_resps(got, tid);
    if (r.size() != 1)
        fail(std::string(what) + ": " + std::to_string(r.size()) + " GetResps, expected 1");
    else if (r[0]->smp.status() != status)
        fail(std::string(what) + ": status " + hex16(r[0]->smp.status()) + ", expected " + hex16(status));
}

void expect_silence(const std::vector<Answer>& got, const char* what, std::uint32_t tid)
{
    if (auto r = get_resps(got, tid); !r.empty()) fail(std::string(what) + ": answered, expected no answer");
}

mad::Smp lid_request(mad::Method m, std::uint16_t attr, std::uint32_t tid, std::uint32_t mod = 0)
{
    return mad::make_lid_request(m, Lid{}, attr, mod, tid);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: malformed_mad_client SM_LID DR-PATH-TO-SM BURST\n");
        return 2;
    }
    const Lid sm(static_cast<std::uint16_t>(std::strtoul(argv[1], nullptr, 0)));
    const auto path = DrPath::parse(argv[2]);
    const unsigned long burst = std::strtoul(argv[3], nullptr, 0);
    if (!path || sm.value() == 0) {
        std::fprintf(stderr, "malformed_mad_client: bad SM LID or DR path\n");
        return 2;
    }
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Client c;

    { // truncated
        c.send(lid_request(mad::Method::get, mad::attr::sm_info, 0x100), sm, 24);
        c.send(lid_request(mad::Method::get, mad::attr::sm_info, 0x101), sm, 100);
        auto got = c.collect(0);
        expect_silence(got, "truncated 24", 0x100);
        expect_silence(got, "truncated 100", 0x101);
        std::printf("truncated: 2 sent, %zu answers\n", got.size());
    }
    { // base-version
        auto m = lid_request(mad::Method::get, mad::attr::sm_info, 0x200);
        m.bytes()[0] = 2;
        c.send(m, sm);
        auto got = c.collect(1); // the simulator's drop notice
        expect_silence(got, "base version 2", 0x200);
        std::printf("base-version: 1 sent, %zu dropped by the simulator, %zu GetResps\n", dropped_by_sim(got, 0x200),
                    get_resps(got, 0x200).size());
    }
    { // class-version
        auto get = lid_request(mad::Method::get, mad::attr::sm_info, 0x300);
        get.bytes()[2] = 2;
        auto trap = lid_request(mad::Method::trap, mad::attr::notice, 0x301);
        trap.bytes()[2] = 2;
        c.send(get, sm);
        c.send(trap, sm);
        auto got = c.collect(0);
        expect_status(got, "class version 2 Get", 0x300, mad::mad_status::bad_version);
        expect_silence(got, "class version 2 Trap", 0x301);
        std::printf("class-version: 2 sent, %zu answers\n", got.size());
    }
    { // sm-key
        mad::SmInfo si;
        si.guid = Guid(0x0badc0de00000001ull);
        si.sm_key = 0xdeadbeefdeadbeefull;
        si.priority = 15;
        si.sm_state = mad::SmState::master;
        std::array<std::uint8_t, 64> data{};
        mad::encode(si, std::span<std::uint8_t, 64>(data));
        auto set = mad::make_lid_request(mad::Method::set, Lid{}, mad::attr::sm_info, mad::sm_control::disable, 0x400,
                                         data);
        c.send(set, sm);
        auto get = mad::make_lid_request(mad::Method::get, Lid{}, mad::attr::sm_info, 0, 0x401, data);
        c.send(get, sm);
        auto got = c.collect(0);
        for (const auto* a : get_resps(got, 0x400)) {
            auto answer = mad::decode_sm_info(a->smp.data());
            if (answer && answer->sm_key != 0) fail("SMInfo Set with a wrong SM_Key: the answer carries the SM_Key");
        }
        auto r = get_resps(got, 0x401);
        if (r.size() != 1) {
            fail("SMInfo Get after the bad Set: no answer");
        } else {
            auto answer = mad::decode_sm_info(r[0]->smp.data());
            if (!answer || answer->sm_state != mad::SmState::master) fail("SMInfo Get after the bad Set: not MASTER");
            if (answer && answer->sm_key != 0) fail("SMInfo Get with a wrong SM_Key: the answer carries the SM_Key");
        }
        std::printf("sm-key: 2 sent, %zu answers to the Set, SM state after it %s\n", get_resps(got, 0x400).size(),
                    r.size() == 1 ? "answered" : "unknown");
    }
    { // unknown-attr
        c.send(lid_request(mad::Method::get, 0xff00, 0x500), sm);
        c.send(lid_request(mad::Method::set, 0x0030, 0x501), sm);
        c.send(mad::make_dr_request(mad::Method::get, *path, 0xff00, 0, 0x502), sm);
        c.send(lid_request(static_cast<mad::Method>(0x03), 0xff00, 0x503), sm);
        auto got = c.collect(0);
        expect_status(got, "Get of attribute 0xff00", 0x500, mad::mad_status::method_attribute_unsupported);
        expect_status(got, "Set of attribute 0x0030", 0x501, mad::mad_status::method_attribute_unsupported);
        expect_status(got, "DR Get of attribute 0xff00", 0x502, mad::mad_status::method_attribute_unsupported);
        expect_silence(got, "method 0x03", 0x503);
        std::printf("unknown-attr: 4 sent, %zu answers\n", got.size());
    }
    { // dr-hops
        c.send(mad::make_dr_request(mad::Method::get, *path, mad::attr::sm_info, 0, 0x600), sm);
        for (std::uint32_t hops : {64u, 255u}) {
            auto m = mad::make_dr_request(mad::Method::get, DrPath{}.extended(PortNum(1)), mad::attr::sm_info, 0,
                                          0x600 + hops);
            m.bytes()[7] = static_cast<std::uint8_t>(hops);
            m.bytes()[128 + 2] = 0xff; // no such port: the simulator stops at the second hop
            c.send(m, sm);
        }
        auto got = c.collect(3); // the answer and two drop notices
        auto r = get_resps(got, 0x600);
        if (r.size() != 1) {
            fail("SMInfo Get over " + std::to_string(path->hops()) + " hops: no answer");
        } else {
            auto si = mad::decode_sm_info(r[0]->smp.data());
            if (!si || si->sm_state != mad::SmState::master || r[0]->smp.hop_count() != path->hops())
                fail("SMInfo Get over the long route: wrong answer");
        }
        expect_silence(got, "hop count 64", 0x600 + 64);
        expect_silence(got, "hop count 255", 0x600 + 255);
        std::printf("dr-hops: %zu-hop Get answered %zu, hop counts 64/255 dropped by the simulator %zu\n", path->hops(),
                    r.size(), dropped_by_sim(got, 0x600 + 64) + dropped_by_sim(got, 0x600 + 255));
    }
    { // unknown-tid: ibsim hands a response to the client whose id is in
      // TID bits 48..63; the SM was the first client (id 0), the others
      // are dropped by the simulator.
        for (std::uint64_t id = 0; id < 4; ++id) {
            auto m = lid_request(mad::Method::get_resp, mad::attr::node_info, 0);
            m.set_tid(id << 48 | 0x7e570000u | id);
            c.send(m, sm);
        }
        auto got = c.collect(0);
        for (std::uint32_t id = 0; id < 4; ++id) expect_silence(got, "unknown TID", 0x7e570000u | id);
        std::printf("unknown-tid: 4 sent, %zu GetResps\n", get_resps(got, 0x7e570000u).size());
    }
    { // burst: five kinds in turn; the Gets of an unknown attribute and of
      // class version 2 are answered, the rest dropped by the SM.
        std::map<std::uint32_t, std::uint16_t> want; // tid -> status
        std::size_t answers = 0, wrong = 0;
        // Reads what arrives until nothing has for `quiet_ms`.
        auto drain = [&](int quiet_ms) {
            while (auto a = c.receive(quiet_ms)) {
                if (a->umad_status != 0 || a->smp.method() != static_cast<std::uint8_t>(mad::Method::get_resp)) continue;
                auto it = want.find(low(a->smp.tid()));
                if (it == want.end() || a->smp.status() != it->second)
                    ++wrong;
                else {
                    ++answers;
                    want.erase(it);
                }
                if (want.empty() && quiet_ms > 0) break;
            }
        };
        // umad2sim holds one lock across a blocking write() to the simulator
        // while its receiver thread needs the same lock to queue what the
        // simulator writes back, and ibsim retries a write to a full socket
        // forever: with answers piling up, the three deadlock. So at most
        // `window` answers are left outstanding (the rest of the burst needs
        // no answer and flows freely).
        constexpr std::size_t window = 8;
        const auto start = std::chrono::steady_clock::now();
        std::size_t expected = 0;
        for (unsigned long i = 0; i < burst; ++i) {
            const auto tid = static_cast<std::uint32_t>(0x10000000u + i);
            if (want.size() >= window) drain(1500); // until quiet: lost answers are counted at the end
            switch (i % 5) {
            case 0:
                c.send(lid_request(mad::Method::get, 0xff00, tid), sm);
                want[tid] = mad::mad_status::method_attribute_unsupported;
                ++expected;
                break;
            case 1: c.send(lid_request(mad::Method::get, mad::attr::sm_info, tid), sm, 48); break;
            case 2: {
                auto m = lid_request(i % 2 ? mad::Method::get : mad::Method::trap, mad::attr::sm_info, tid);
                m.bytes()[2] = 2;
                c.send(m, sm);
                if (i % 2) {
                    want[tid] = mad::mad_status::bad_version;
                    ++expected;
                }
                break;
            }
            case 3: {
                auto m = lid_request(mad::Method::get_resp, mad::attr::node_info, 0);
                m.set_tid(tid);
                c.send(m, sm);
                break;
            }
            default: c.send(lid_request(static_cast<mad::Method>(0x03), 0xff00, tid), sm); break;
            }
            if (i % 16 == 15) drain(0);
        }
        const double send_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        drain(3000);
        const double all_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (answers != expected)
            fail("burst: " + std::to_string(answers) + " right answers, expected " + std::to_string(expected));
        if (wrong != 0) fail("burst: " + std::to_string(wrong) + " wrong answers");
        std::printf("burst: %lu sent in %.2f s, %zu of %zu expected answers in %.2f s, %zu wrong\n", burst, send_s,
                    answers, expected, all_s, wrong);
    }
    std::printf("%s: %d failed expectation(s), %llu MADs sent\n", failures ? "FAIL" : "ok", failures,
                static_cast<unsigned long long>(c.sent()));
    std::fflush(stdout);
    // umad2sim's exit-time clean-up corrupts its own heap ("double free or
    // corruption") after a long run; nothing of ours needs destructors.
    std::_Exit(failures ? 1 : 0);
}
