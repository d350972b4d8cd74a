// RAII wrapper over one libibumad port: opens it, registers the SMP agents
// (directed route 0x81 and LID routed 0x01, both also receiving unsolicited
// Get/Set/Trap requests addressed to the SM) and, for the SM, the SA agent
// (class 0x03, no kernel RMPP: the SA segments its own answers), optionally
// claims the IsSM capability through the issm device, and sends/receives raw
// MADs. A PerfMgt agent (class 0x04, version 1) sends the counter poller's
// LID-routed GMPs to each port's PMA on QP1.
//
// Why a separate class: the Transport above it deals in Smp values, TIDs and
// time; everything that knows libibumad's C API and its buffer layout lives
// here, so the Transport can be tested against a fake port.
#pragma once

#include "mad/smp.h"
#include "mad/types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace ibsm::mad {

struct PortAttributes {
    std::string ca_name;
    int port_num = 0;
    Guid port_guid;
    Lid base_lid;
    Lid sm_lid;
    std::uint8_t lmc = 0;
    std::uint8_t state = 0; // IBA PortState
};

class UmadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What the port layer hands up: a received MAD, or the kernel reporting that
// one of our sends timed out (status != 0 on a send we own).
struct RawReceive {
    Smp smp;
    std::size_t length = 0; // MAD bytes actually received
    int umad_status = 0;    // non-zero: kernel-side send failure/timeout
    int agent = -1;
    // libibumad's per-MAD header (address of the sender), kept so a response
    // can be addressed back to it.
    std::array<std::uint8_t, 128> umad_header{};
    // The sender's address decoded from that header (GSI answers go to its
    // QP, not to QP0 like SMPs).
    Lid source_lid;
    std::uint32_t source_qpn = 0;
    std::uint8_t source_sl = 0;
};

// Where a GSI MAD (class 0x03, the SA) goes: a LID and a QP (QP1 for the
// class agents, or the QP a request came from) with the well-known GSI Q_Key.
struct GsiAddress {
    Lid lid;
    std::uint32_t qpn = 1;
    std::uint32_t qkey = 0x80010000;
    std::uint8_t sl = 0;
    bool operator==(const GsiAddress&) const = default;
};

// The abstract port the Transport drives; UmadPort is the real one.
class MadPort {
public:
    virtual ~MadPort() = default;
    // Non-blocking: false when the send could not be queued. `dlid` is the
    // LID-routed destination; directed-route SMPs always leave through the
    // permissive LID and ignore it.
    virtual bool send(const Smp& smp, Lid dlid, std::uint32_t timeout_ms) = 0;
    // Non-blocking: nullopt when nothing is queued.
    virtual std::optional<RawReceive> try_receive() = 0;
    // The descriptor to wait on, and whether it is a real kernel descriptor
    // that epoll can watch (umad2sim hands out fake descriptors >= 1024).
    virtual int fd() const = 0;
    virtual bool pollable_by_reactor() const = 0;
    // Blocks at most timeout_ms for readability using the library's own
    // poll (works for the simulator's fake descriptors).
    virtual bool wait_readable(int timeout_ms) = 0;
    // Sends a response to an unsolicited request received on this port.
    virtual bool send_response(const Smp& smp, const RawReceive& request) = 0;
    // Sends one 256-byte GSI MAD (SA responses, RMPP segments, Reports)
    // through the SA agent, without kernel timeouts or RMPP (the SA does
    // both itself). Ports without an SA agent refuse.
    virtual bool send_gsi(std::span<const std::uint8_t, mad_size> /*mad*/, const GsiAddress& /*to*/) { return false; }
};

// The local CA name and port number whose port GUID is `guid`, for selecting
// the SM's port by GUID (sm.port_guid). Throws UmadError naming the local
// port GUIDs when none matches.
std::pair<std::string, int> find_local_port(Guid guid);

class UmadPort final : public MadPort {
public:
    // ca_name empty and port 0 pick the first active port, as the
    // infiniband-diags tools do. Throws UmadError with the reason.
    UmadPort(const std::string& ca_name, int port_num, bool claim_sm);
    ~UmadPort() override;
    UmadPort(const UmadPort&) = delete;
    UmadPort& operator=(const UmadPort&) = delete;

    const PortAttributes& attributes() const { return attrs_; }
    // Re-reads LID/SM LID/state (they change once the SM programs its own port).
    PortAttributes refresh_attributes();

    bool send(const Smp& smp, Lid dlid, std::uint32_t timeout_ms) override;
    std::optional<RawReceive> try_receive() override;
    int fd() const override { return fd_; }
    bool pollable_by_reactor() const override { return pollable_; }
    bool wait_readable(int timeout_ms) override;
    bool send_response(const Smp& smp, const RawReceive& request) override;
    bool send_gsi(std::span<const std::uint8_t, mad_size> mad, const GsiAddress& to) override;
    // Whether the SA (class 0x03) agent is registered: only with claim_sm,
    // and only when no other SA holds the class on this port.
    bool sa_registered() const { return agent_sa_ >= 0; }

private:
    int agent_for(std::uint8_t mgmt_class) const;

    PortAttributes attrs_;
    int port_id_ = -1;
    int fd_ = -1;
    int issm_fd_ = -1;
    int agent_dr_ = -1;
    int agent_lid_ = -1;
    int agent_sa_ = -1;
    int agent_perf_ = -1;
    bool pollable_ = false;
    void* send_buf_ = nullptr;
    void* recv_buf_ = nullptr;
};

} // namespace ibsm::mad
