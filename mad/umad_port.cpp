// The simulator's umad2sim intercepts open(), not open64(): with Meson's
// default -D_FILE_OFFSET_BITS=64 our open() of the issm device would bypass
// it and ibsim would never learn that this client is the SM (no traps).
// Nothing in this file needs large-file offsets.
#undef _FILE_OFFSET_BITS

#include "mad/umad_port.h"

#include <infiniband/umad.h>

#include <cerrno>
#include <climits>
#include <algorithm>
#include <cstring>
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <string_view>
#include <unistd.h>

namespace ibsm::mad {
namespace {

// Methods an SM must accept unsolicited: Get/Set (SMInfo queries from other
// SMs and tools like `sminfo`) and Trap (notices sent to the SM LID).
void sm_method_mask(long (&mask)[16 / sizeof(long)])
{
    std::memset(mask, 0, sizeof mask);
    for (unsigned m : {0x01u, 0x02u, 0x05u}) {
        mask[m / (8 * sizeof(long))] |= 1L << (m % (8 * sizeof(long)));
    }
}

// A kernel umad descriptor is a character device under /dev/infiniband.
// umad2sim returns made-up numbers (>= 1024) that are not open in the
// process, or worse, collide with something else; /proc tells them apart.
bool is_kernel_umad_fd(int fd)
{
    char link[64];
    char target[PATH_MAX];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = ::readlink(link, target, sizeof target - 1);
    if (n <= 0) return false;
    target[n] = '\0';
    return std::string_view(target).starts_with("/dev/infiniband/");
}

// Methods the SA receives unsolicited (IBA 15.4, table 196): Get, Set,
// GetTable, GetTraceTable, GetMulti, Delete. RMPP ACKs of our GetTableResp
// segments come back as GetTable (the receiver flips the response bit).
void sa_method_mask(long (&mask)[16 / sizeof(long)])
{
    std::memset(mask, 0, sizeof mask);
    for (unsigned m : {0x01u, 0x02u, 0x12u, 0x13u, 0x14u, 0x15u}) {
        mask[m / (8 * sizeof(long))] |= 1L << (m % (8 * sizeof(long)));
    }
}

} // namespace

std::pair<std::string, int> find_local_port(Guid guid)
{
    if (umad_init() < 0) throw UmadError("umad_init failed: no InfiniBand stack (is ib_umad loaded?)");
    char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
    const int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
    std::string seen;
    for (int i = 0; i < n; ++i) {
        __be64 guids[UMAD_MAX_PORTS + 1] = {};
        const int ports = umad_get_ca_portguids(names[i], guids, UMAD_MAX_PORTS + 1);
        // Entry p is port p; entry 0 is only a real port on switches.
        for (int p = 0; p < ports; ++p) {
            const Guid g(be64toh(guids[p]));
            if (g.is_zero()) continue;
            if (g == guid) return {names[i], p};
            seen += (seen.empty() ? "" : ", ") + std::string(names[i]) + " port " + std::to_string(p) + " " + g.str();
        }
    }
    throw UmadError("no local port has GUID " + guid.str() + " (local ports: " + (seen.empty() ? "none" : seen) +
                    "): give one of these GUIDs (--port-guid, sm.port_guid), as `ibstat -p` lists them");
}

UmadPort::UmadPort(const std::string& ca_name, int port_num, bool claim_sm)
{
    if (umad_init() < 0) throw UmadError("umad_init failed: no InfiniBand stack (is ib_umad loaded?)");

    const char* ca = ca_name.empty() ? nullptr : ca_name.c_str();
    umad_port_t port{};
    if (umad_get_port(ca, port_num, &port) < 0)
        throw UmadError((port_num ? "no port " + std::to_string(port_num) : std::string("no usable InfiniBand port")) +
                        " on " + (ca ? "CA " + ca_name : "any CA") +
                        ": check that ib_umad is loaded and `ibstat` lists the port, or select another one "
                        "(--ca/--port, --port-guid)");
    attrs_.ca_name = port.ca_name;
    attrs_.port_num = port.portnum;
    attrs_.port_guid = Guid(be64toh(port.port_guid));
    attrs_.base_lid = Lid(static_cast<std::uint16_t>(port.base_lid));
    attrs_.sm_lid = Lid(static_cast<std::uint16_t>(port.sm_lid));
    attrs_.lmc = static_cast<std::uint8_t>(port.lmc);
    attrs_.state = static_cast<std::uint8_t>(port.state);
    umad_release_port(&port);

    port_id_ = umad_open_port(attrs_.ca_name.c_str(), attrs_.port_num);
    if (port_id_ < 0)
        throw UmadError("umad_open_port(" + attrs_.ca_name + ", " + std::to_string(attrs_.port_num) +
                        ") failed: " + std::strerror(-port_id_) +
                        " (the SM needs read/write access to /dev/infiniband/umad*: run it as root)");
    fd_ = umad_get_fd(port_id_);
    pollable_ = is_kernel_umad_fd(fd_);
    if (pollable_) {
        // try_receive() reads with umad_recv(timeout 0), which goes straight
        // to read(): on a blocking descriptor that would stall the event loop.
        int flags = ::fcntl(fd_, F_GETFL);
        if (flags < 0 || ::fcntl(fd_, F_SETFL, flags | O_NONBLOCK) < 0) {
            umad_close_port(port_id_);
            throw UmadError(std::string("cannot make the umad descriptor non-blocking: ") + std::strerror(errno));
        }
    }

    long mask[16 / sizeof(long)];
    sm_method_mask(mask);
    agent_dr_ = umad_register(port_id_, mgmt_class_directed_route, 1, 0, claim_sm ? mask : nullptr);
    agent_lid_ = umad_register(port_id_, mgmt_class_lid_routed, 1, 0, claim_sm ? mask : nullptr);
    if (agent_dr_ < 0 || agent_lid_ < 0) {
        umad_close_port(port_id_);
        throw UmadError("cannot register SMP agents on " + attrs_.ca_name + " port " +
                        std::to_string(attrs_.port_num) + " (another SM running on this port?)");
    }

    if (claim_sm) {
        // umad2sim hands a MAD of a class nobody registered to a null queue
        // and crashes the process (saquery against ibsmd did; DEVELOPERS.md,
        // "Things that bite"), so the SM always registers the SA class.
        // Without kernel RMPP (rmpp_version 0): umad2sim has none, and the
        // SA's own sender works the same on both.
        long sa_mask[16 / sizeof(long)];
        sa_method_mask(sa_mask);
        agent_sa_ = umad_register(port_id_, 0x03, 2, 0, sa_mask);
    }

    // The counter poller's requests (no unsolicited PerfMgt MADs are taken:
    // no method mask). Without it the poller's sends fail and it says so.
    agent_perf_ = umad_register(port_id_, 0x04, 1, 0, nullptr);

    if (claim_sm) {
        char path[256];
        if (umad_get_issm_path(attrs_.ca_name.c_str(), attrs_.port_num, path, sizeof path) == 0)
            issm_fd_ = ::open(path, O_RDWR);
        if (issm_fd_ < 0) {
            umad_close_port(port_id_);
            throw UmadError(std::string("cannot open the issm device (IsSM capability) for ") + attrs_.ca_name +
                            ": " + std::strerror(errno) + " (run the SM as root; is another SM holding it?)");
        }
    }

    send_buf_ = umad_alloc(1, umad_size() + mad_size);
    recv_buf_ = umad_alloc(1, umad_size() + mad_size);
    if (!send_buf_ || !recv_buf_) throw UmadError("out of memory for umad buffers");
}

UmadPort::~UmadPort()
{
    if (issm_fd_ >= 0) ::close(issm_fd_);
    if (port_id_ >= 0) umad_close_port(port_id_);
    umad_free(send_buf_);
    umad_free(recv_buf_);
    umad_done();
}

PortAttributes UmadPort::refresh_attributes()
{
    umad_port_t port{};
    if (umad_get_port(attrs_.ca_name.c_str(), attrs_.port_num, &port) == 0) {
        attrs_.base_lid = Lid(static_cast<std::uint16_t>(port.base_lid));
        attrs_.sm_lid = Lid(static_cast<std::uint16_t>(port.sm_lid));
        attrs_.lmc = static_cast<std::uint8_t>(port.lmc);
        attrs_.state = static_cast<std::uint8_t>(port.state);
        umad_release_port(&port);
    }
    return attrs_;
}

int UmadPort::agent_for(std::uint8_t mgmt_class) const
{
    if (mgmt_class == 0x03) return agent_sa_;
    if (mgmt_class == 0x04) return agent_perf_;
    return mgmt_class == mgmt_class_directed_route ? agent_dr_ : agent_lid_;
}

bool UmadPort::send(const Smp& smp, Lid dlid, std::uint32_t timeout_ms)
{
    std::memset(send_buf_, 0, umad_size());
    std::memcpy(umad_get_mad(send_buf_), smp.bytes().data(), mad_size);
    // SMPs go to QP0; DR SMPs leave through the permissive LID and the SMA of
    // each hop follows the path.
    // PerfMgt GMPs go to the PMA on QP1 with the GSI Q_Key.
    if (smp.mgmt_class() == 0x04)
        umad_set_addr(send_buf_, dlid.value(), 1, 0, static_cast<int>(0x80010000u));
    else
        umad_set_addr(send_buf_, smp.directed_route() ? Lid::permissive : dlid.value(), 0, 0, 0);
    return umad_send(port_id_, agent_for(smp.mgmt_class()), send_buf_, static_cast<int>(mad_size),
                     static_cast<int>(timeout_ms), 0) == 0;
}

std::optional<RawReceive> UmadPort::try_receive()
{
    int len = static_cast<int>(mad_size);
    int agent = umad_recv(port_id_, recv_buf_, &len, 0);
    if (agent < 0) return std::nullopt; // -ETIMEDOUT: nothing queued; other errors: nothing usable
    RawReceive r;
    r.agent = agent;
    r.umad_status = umad_status(recv_buf_);
    r.length = len < 0 ? 0 : std::min<std::size_t>(static_cast<std::size_t>(len), mad_size);
    r.smp = Smp::from_bytes(std::span(static_cast<const std::uint8_t*>(umad_get_mad(recv_buf_)), r.length));
    std::memcpy(r.umad_header.data(), recv_buf_, std::min(umad_size(), r.umad_header.size()));
    if (const ib_mad_addr_t* a = umad_get_mad_addr(recv_buf_)) {
        r.source_lid = Lid(be16toh(a->lid));
        r.source_qpn = be32toh(a->qpn);
        r.source_sl = a->sl;
    }
    return r;
}

bool UmadPort::wait_readable(int timeout_ms)
{
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, timeout_ms) > 0 && (p.revents & POLLIN);
}

bool UmadPort::send_response(const Smp& smp, const RawReceive& request)
{
    std::memset(send_buf_, 0, umad_size());
    // Reply to where the request came from: same address block (LID, QPN).
    std::memcpy(send_buf_, request.umad_header.data(), std::min(umad_size(), request.umad_header.size()));
    std::memcpy(umad_get_mad(send_buf_), smp.bytes().data(), mad_size);
    return umad_send(port_id_, agent_for(smp.mgmt_class()), send_buf_, static_cast<int>(mad_size), 0, 0) == 0;
}

bool UmadPort::send_gsi(std::span<const std::uint8_t, mad_size> mad, const GsiAddress& to)
{
    if (agent_sa_ < 0) return false;
    std::memset(send_buf_, 0, umad_size());
    std::memcpy(umad_get_mad(send_buf_), mad.data(), mad_size);
    umad_set_addr(send_buf_, to.lid.value(), static_cast<int>(to.qpn), to.sl, static_cast<int>(to.qkey));
    return umad_send(port_id_, agent_sa_, send_buf_, static_cast<int>(mad_size), 0, 0) == 0;
}

} // namespace ibsm::mad
