// libibsim-rmpp.so: RMPP (IBA 13.6) for stock clients under umad2sim. The
// protocol is in endpoint.h; this file only moves packets between it and
// libibumad, and is meant to stay that thin.
//
// How it sits (scripts/ibsim-client sets it up):
//   LD_PRELOAD="libumad2sim.so libibsim-rmpp.so"
// - libibumad's umad_register*, umad_send, umad_recv and umad_poll are
//   interposed (umad2sim intercepts only open/read/write/ioctl/poll below
//   libibumad, so the order between the two does not matter for these):
//   registrations tell the endpoint which agents asked for RMPP, sends go
//   through Endpoint::send, and receives loop over the real umad_recv in
//   short slices so the endpoint's timers run while the client waits.
// - read() is interposed *below* umad2sim (hence the order): umad2sim's
//   receiver thread reads each datagram from ibsim into a 288-byte buffer and
//   hands the client 320 bytes, so MAD bytes 224..255 are heap garbage (SA
//   data bytes 168..199 of every segment). The full datagram passes through
//   our read() first; it is kept in a small ring and the client's copy is
//   repaired from it by matching the first 224 bytes.
// On hardware the kernel does all this; without umad2sim in the process the
// library stays out of the way (it says so once on stderr).
//
// Threads: OpenSM reads on one thread and sends on others, so the endpoints
// sit behind one mutex; the repair ring has its own (umad2sim's receiver
// thread fills it without holding any of umad2sim's locks). Lock order:
// ours, then umad2sim's (taken inside its write); never the reverse.
#include "ibsim_rmpp/endpoint.h"

#include <infiniband/umad.h>

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string_view>
#include <thread>

#define IBSIM_RMPP_EXPORT __attribute__((visibility("default")))

namespace {

using ibsm::ibsim_rmpp::Clock;
using ibsm::ibsim_rmpp::Endpoint;
using ibsm::ibsim_rmpp::Packet;
using ibsm::ibsim_rmpp::Settings;

constexpr std::size_t umad_hdr = sizeof(ib_user_mad_t);
constexpr std::size_t mad_bytes = 256;

// ibsim's datagram (include/ibsim.h of linux-rdma/ibsim, struct sim_request):
// five 32-bit words, a 64-bit length, then the MAD.
constexpr std::size_t sim_request_size = 288;
constexpr std::size_t sim_request_mad = 32;
// What umad2sim copies of it intact: its buffer less the umad header.
constexpr std::size_t intact = sim_request_size - umad_hdr;

template <typename F>
F next_symbol(const char* name)
{
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

using read_fn = ssize_t (*)(int, void*, size_t);
using send_fn = int (*)(int, int, void*, int, int, int);
using recv_fn = int (*)(int, void*, int*, int);
using poll_fn = int (*)(int, int);
using register_fn = int (*)(int, int, int, uint8_t, long*);
using register_oui_fn = int (*)(int, int, uint8_t, uint8_t*, long*);
using register2_fn = int (*)(int, struct umad_reg_attr*, uint32_t*);
using unregister_fn = int (*)(int, int);
using close_port_fn = int (*)(int);

std::atomic<read_fn> real_read{nullptr};

// ---- the repair ring (below umad2sim) ------------------------------------
struct Ring {
    std::mutex mu;
    std::array<std::array<std::uint8_t, mad_bytes>, 1024> mads{};
    std::array<bool, 1024> used{};
    std::size_t next = 0;
    std::uint64_t repaired = 0, unmatched = 0;
} ring;

void ring_keep(const std::uint8_t* mad)
{
    if (mad[0] != 1) return; // not a MAD (base version 1)
    std::lock_guard lock(ring.mu);
    std::memcpy(ring.mads[ring.next].data(), mad, mad_bytes);
    ring.used[ring.next] = true;
    ring.next = (ring.next + 1) % ring.mads.size();
}

void ring_repair(std::vector<std::uint8_t>& mad)
{
    if (mad.size() <= intact) return;
    std::lock_guard lock(ring.mu);
    // Oldest first: resends of one segment are identical anyway.
    for (std::size_t k = 0; k < ring.mads.size(); ++k) {
        const std::size_t i = (ring.next + k) % ring.mads.size();
        if (!ring.used[i] || std::memcmp(ring.mads[i].data(), mad.data(), intact) != 0) continue;
        std::memcpy(mad.data() + intact, ring.mads[i].data() + intact, std::min(mad.size(), mad_bytes) - intact);
        ring.used[i] = false;
        ++ring.repaired;
        return;
    }
    ++ring.unmatched;
}

// ---- the endpoints (above libibumad) -------------------------------------
struct State {
    std::mutex mu;
    std::map<int, Endpoint> ports;
    Settings settings;
    bool active = false;
    send_fn send = nullptr;
    recv_fn recv = nullptr;
    poll_fn poll = nullptr;
    register_fn reg = nullptr;
    register_oui_fn reg_oui = nullptr;
    register2_fn reg2 = nullptr;
    unregister_fn unreg = nullptr;
    close_port_fn close_port = nullptr;
    bool stats = false;
    std::chrono::milliseconds linger{100};
    Clock::time_point last_write{};
    ibsm::ibsim_rmpp::Counters closed; // of ports the client closed
};

void add(ibsm::ibsim_rmpp::Counters& to, const ibsm::ibsim_rmpp::Counters& c)
{
    to.sent_transfers += c.sent_transfers;
    to.sent_segments += c.sent_segments;
    to.sent_completed += c.sent_completed;
    to.sent_aborted += c.sent_aborted;
    to.received_transfers += c.received_transfers;
    to.received_completed += c.received_completed;
    to.received_aborted += c.received_aborted;
    to.acks_sent += c.acks_sent;
    to.control_dropped += c.control_dropped;
    to.requests_timed_out += c.requests_timed_out;
    to.requests_resent += c.requests_resent;
}

State& state()
{
    static State* s = new State; // never destroyed: clients send from atexit handlers
    return *s;
}

unsigned long env_number(const char* name, unsigned long fallback)
{
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    char* end = nullptr;
    const unsigned long n = std::strtoul(v, &end, 10);
    if (*end != '\0') {
        std::fprintf(stderr, "libibsim-rmpp: %s=%s is not a number; using %lu\n", name, v, fallback);
        return fallback;
    }
    return n;
}

bool umad2sim_loaded()
{
    bool found = false;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            if (info->dlpi_name && std::string_view(info->dlpi_name).find("umad2sim") != std::string_view::npos)
                *static_cast<bool*>(data) = true;
            return 0;
        },
        &found);
    return found;
}

__attribute__((constructor)) void init()
{
    real_read.store(next_symbol<read_fn>("read"));
    auto& s = state();
    s.send = next_symbol<send_fn>("umad_send");
    s.recv = next_symbol<recv_fn>("umad_recv");
    s.poll = next_symbol<poll_fn>("umad_poll");
    s.reg = next_symbol<register_fn>("umad_register");
    s.reg_oui = next_symbol<register_oui_fn>("umad_register_oui");
    s.reg2 = next_symbol<register2_fn>("umad_register2");
    s.unreg = next_symbol<unregister_fn>("umad_unregister");
    s.close_port = next_symbol<close_port_fn>("umad_close_port");
    s.settings.window = static_cast<std::uint32_t>(env_number("IBSIM_RMPP_WINDOW", s.settings.window));
    s.settings.ack_timeout = std::chrono::milliseconds(env_number("IBSIM_RMPP_ACK_TIMEOUT_MS", s.settings.ack_timeout.count()));
    s.settings.retries = static_cast<unsigned>(env_number("IBSIM_RMPP_RETRIES", s.settings.retries));
    s.settings.receive_timeout =
        std::chrono::milliseconds(env_number("IBSIM_RMPP_RECEIVE_TIMEOUT_MS", s.settings.receive_timeout.count()));
    s.stats = env_number("IBSIM_RMPP_STATS", 0) != 0;
    s.linger = std::chrono::milliseconds(env_number("IBSIM_RMPP_LINGER_MS", s.linger.count()));
    s.active = s.send && s.recv && umad2sim_loaded();
    if (!s.active && s.send)
        std::fprintf(stderr, "libibsim-rmpp: libumad2sim.so is not loaded; RMPP left to the kernel\n");
}

__attribute__((destructor)) void report()
{
    auto& s = state();
    if (!s.stats) return;
    std::lock_guard lock(s.mu);
    auto c = s.closed;
    for (const auto& [fd, ep] : s.ports) add(c, ep.counters());
    std::fprintf(stderr,
                 "libibsim-rmpp: sent %llu transfers (%llu segments, %llu completed, %llu aborted); "
                 "received %llu transfers (%llu completed, %llu aborted, %llu ACKs sent); %llu control packets dropped\n",
                 static_cast<unsigned long long>(c.sent_transfers), static_cast<unsigned long long>(c.sent_segments),
                 static_cast<unsigned long long>(c.sent_completed), static_cast<unsigned long long>(c.sent_aborted),
                 static_cast<unsigned long long>(c.received_transfers), static_cast<unsigned long long>(c.received_completed),
                 static_cast<unsigned long long>(c.received_aborted), static_cast<unsigned long long>(c.acks_sent),
                 static_cast<unsigned long long>(c.control_dropped));
    std::fprintf(stderr, "libibsim-rmpp: %llu requests resent, %llu timed out\n",
                 static_cast<unsigned long long>(c.requests_resent), static_cast<unsigned long long>(c.requests_timed_out));
    std::fprintf(stderr, "libibsim-rmpp: %llu MADs repaired past byte %zu, %llu not matched\n",
                 static_cast<unsigned long long>(ring.repaired), intact, static_cast<unsigned long long>(ring.unmatched));
}

Endpoint& port(State& s, int fd)
{
    auto it = s.ports.find(fd);
    if (it == s.ports.end()) it = s.ports.emplace(fd, Endpoint(s.settings)).first;
    return it->second;
}

// Writes what the endpoint wants written; returns the first failure.
int write_packets(State& s, int fd, const std::vector<Packet>& packets)
{
    int rc = 0;
    std::vector<std::uint8_t> buf;
    for (const auto& p : packets) {
        buf.assign(umad_hdr + p.mad.size(), 0);
        std::memcpy(buf.data(), &p.hdr, umad_hdr);
        std::memcpy(buf.data() + umad_hdr, p.mad.data(), p.mad.size());
        const int r = s.send(fd, static_cast<int>(p.hdr.agent_id), buf.data(), static_cast<int>(p.mad.size()),
                             static_cast<int>(p.hdr.timeout_ms), static_cast<int>(p.hdr.retries));
        if (r < 0 && rc == 0) rc = r;
    }
    if (!packets.empty()) s.last_write = Clock::now();
    return rc;
}

void flush(State& s, int fd, Endpoint& ep)
{
    write_packets(s, fd, ep.take_outbox());
}

// One packet from umad2sim within `slice_ms`; false on none.
// Not instrumented by ASan: a client may cancel the thread waiting here
// (OpenSM's libosmvendor cancels its receiver thread inside umad_recv when
// osmtest or opensm ends), and a forced unwind leaves this frame without the
// epilogue that clears its stack redzones; ASan's own handling of the unwind
// then writes over them and reports a stack overflow that never happened.
__attribute__((no_sanitize("address"))) bool receive_below(State& s, int fd, int slice_ms, Packet& out, int& error)
{
    std::array<std::uint8_t, umad_hdr + 2 * mad_bytes> buf{};
    int len = 2 * mad_bytes;
    const int r = s.recv(fd, buf.data(), &len, slice_ms);
    if (r < 0) {
        error = errno ? errno : -r;
        return false;
    }
    std::memcpy(&out.hdr, buf.data(), umad_hdr);
    out.mad.assign(buf.begin() + umad_hdr, buf.begin() + umad_hdr + std::clamp(len, 0, int(2 * mad_bytes)));
    ring_repair(out.mad);
    return true;
}

int deliver(Endpoint& ep, void* umad, int* length)
{
    const Packet& m = ep.front_ready();
    const int need = static_cast<int>(m.mad.size());
    if (*length < need) {
        // As the kernel: the header with the whole length, ENOSPC, and the
        // message stays first in line for a larger buffer.
        ib_user_mad_t hdr = m.hdr;
        hdr.length = static_cast<std::uint32_t>(umad_hdr + m.mad.size());
        std::memcpy(umad, &hdr, umad_hdr);
        *length = need;
        errno = ENOSPC;
        return -ENOSPC;
    }
    std::memcpy(umad, &m.hdr, umad_hdr);
    std::memcpy(static_cast<std::uint8_t*>(umad) + umad_hdr, m.mad.data(), m.mad.size());
    *length = need;
    const int agent = static_cast<int>(m.hdr.agent_id);
    ep.pop_ready();
    return agent;
}

// Waits up to timeout_ms (< 0: for ever) for a message for the client,
// running the endpoint's timers meanwhile. `take`: hand it over (umad_recv)
// or only say it is there (umad_poll).
int wait_for_message(State& s, int fd, void* umad, int* length, int timeout_ms, bool take)
{
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
    for (;;) {
        auto now = Clock::now();
        int slice = 0;
        {
            std::lock_guard lock(s.mu);
            auto& ep = port(s, fd);
            ep.tick(now);
            flush(s, fd, ep);
            if (ep.has_ready()) return take ? deliver(ep, umad, length) : 0;
            // Short slices while transfers run, so their timers fire on time.
            auto until = timeout_ms < 0 ? now + std::chrono::milliseconds(100) : deadline;
            if (auto d = ep.next_deadline()) until = std::min(until, *d);
            until = std::min(until, now + std::chrono::milliseconds(100));
            slice = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(std::max(until - now, Clock::duration::zero())).count());
            if (timeout_ms == 0) slice = 0;
        }
        Packet p;
        int error = 0;
        if (receive_below(s, fd, slice, p, error)) {
            std::lock_guard lock(s.mu);
            auto& ep = port(s, fd);
            ep.received(std::move(p), Clock::now());
            flush(s, fd, ep);
            continue;
        }
        // Nothing yet: a timeout, an empty queue, or umad2sim's poll waking
        // without data (libibumad turns its -1 into EPERM). Anything else is
        // the port's own error and goes to the client.
        const bool nothing = error == 0 || error == ETIMEDOUT || error == EWOULDBLOCK || error == EAGAIN ||
                             error == EINTR || error == EPERM;
        if (!nothing) {
            errno = error;
            return -error;
        }
        if (timeout_ms >= 0 && Clock::now() >= deadline) {
            const int e = (take && timeout_ms == 0) ? EWOULDBLOCK : ETIMEDOUT;
            errno = e;
            return -e;
        }
    }
}

// Before the client lets go of its port: umad2sim tells ibsim on another
// socket that the client is gone, and ibsim drops what it has not yet read
// from the client, so the final ACK of a transfer written just before would
// be lost and the sender would resend into the next client on the node
// (which umad2sim crashes). Give ibsim `linger` after our last write.
void linger_after_writes(State& s)
{
    Clock::time_point until;
    {
        std::lock_guard lock(s.mu);
        until = s.last_write + s.linger;
    }
    if (Clock::now() < until) std::this_thread::sleep_until(until);
}

void note_registration(State& s, int fd, int agent, std::uint8_t rmpp_version)
{
    if (agent < 0) return;
    std::lock_guard lock(s.mu);
    port(s, fd).registered(static_cast<std::uint32_t>(agent), rmpp_version);
}

} // namespace

// ---- interposed: below umad2sim ------------------------------------------
extern "C" IBSIM_RMPP_EXPORT ssize_t read(int fd, void* buf, size_t count)
{
    read_fn r = real_read.load(std::memory_order_relaxed);
    if (!r) {
        r = next_symbol<read_fn>("read");
        real_read.store(r);
    }
    const ssize_t n = r(fd, buf, count);
    if (count == sim_request_size && n == static_cast<ssize_t>(count))
        ring_keep(static_cast<const std::uint8_t*>(buf) + sim_request_mad);
    return n;
}

// ---- interposed: libibumad -----------------------------------------------
extern "C" IBSIM_RMPP_EXPORT int umad_register(int portid, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
                             long method_mask[16 / sizeof(long)])
{
    auto& s = state();
    const int agent = s.reg(portid, mgmt_class, mgmt_version, rmpp_version, method_mask);
    if (s.active) note_registration(s, portid, agent, rmpp_version);
    return agent;
}

extern "C" IBSIM_RMPP_EXPORT int umad_register_oui(int portid, int mgmt_class, uint8_t rmpp_version, uint8_t oui[3],
                                 long method_mask[16 / sizeof(long)])
{
    auto& s = state();
    const int agent = s.reg_oui(portid, mgmt_class, rmpp_version, oui, method_mask);
    if (s.active) note_registration(s, portid, agent, rmpp_version);
    return agent;
}

extern "C" IBSIM_RMPP_EXPORT int umad_register2(int port_fd, struct umad_reg_attr* attr, uint32_t* agent_id)
{
    auto& s = state();
    const int rc = s.reg2(port_fd, attr, agent_id);
    if (s.active && rc == 0 && attr && agent_id) note_registration(s, port_fd, static_cast<int>(*agent_id), attr->rmpp_version);
    return rc;
}

extern "C" IBSIM_RMPP_EXPORT int umad_unregister(int portid, int agentid)
{
    auto& s = state();
    if (s.active) {
        linger_after_writes(s);
        std::lock_guard lock(s.mu);
        port(s, portid).unregistered(static_cast<std::uint32_t>(agentid));
    }
    return s.unreg(portid, agentid);
}

extern "C" IBSIM_RMPP_EXPORT int umad_close_port(int portid)
{
    auto& s = state();
    if (s.active) {
        linger_after_writes(s);
        std::lock_guard lock(s.mu);
        if (auto it = s.ports.find(portid); it != s.ports.end()) {
            add(s.closed, it->second.counters());
            s.ports.erase(it);
        }
    }
    return s.close_port(portid);
}

extern "C" IBSIM_RMPP_EXPORT int umad_send(int portid, int agentid, void* umad, int length, int timeout_ms, int retries)
{
    auto& s = state();
    if (!s.active || !umad || length <= 0) return s.send(portid, agentid, umad, length, timeout_ms, retries);
    Packet p;
    std::memcpy(&p.hdr, umad, umad_hdr);
    p.hdr.agent_id = static_cast<std::uint32_t>(agentid);
    p.hdr.timeout_ms = static_cast<std::uint32_t>(timeout_ms);
    p.hdr.retries = static_cast<std::uint32_t>(retries);
    const auto* mad = static_cast<const std::uint8_t*>(umad) + umad_hdr;
    p.mad.assign(mad, mad + length);
    std::lock_guard lock(s.mu);
    auto& ep = port(s, portid);
    return write_packets(s, portid, ep.send(std::move(p), Clock::now()));
}

extern "C" IBSIM_RMPP_EXPORT int umad_recv(int portid, void* umad, int* length, int timeout_ms)
{
    auto& s = state();
    if (!s.active || !umad || !length) return s.recv(portid, umad, length, timeout_ms);
    return wait_for_message(s, portid, umad, length, timeout_ms, true);
}

extern "C" IBSIM_RMPP_EXPORT int umad_poll(int portid, int timeout_ms)
{
    auto& s = state();
    if (!s.active) return s.poll(portid, timeout_ms);
    return wait_for_message(s, portid, nullptr, nullptr, timeout_ms, false);
}
