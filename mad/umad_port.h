// RAII wrapper over one libibumad port: opens it, registers the SMP agents
// (directed route 0x81 and LID routed 0x01, both also receiving unsolicited
// Get/Set/Trap requests addressed to the SM), optionally claims the IsSM
// capability through the issm device, and sends/receives raw MADs.
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

private:
    int agent_for(std::uint8_t mgmt_class) const;

    PortAttributes attrs_;
    int port_id_ = -1;
    int fd_ = -1;
    int issm_fd_ = -1;
    int agent_dr_ = -1;
    int agent_lid_ = -1;
    bool pollable_ = false;
    void* send_buf_ = nullptr;
    void* recv_buf_ = nullptr;
};

} // namespace ibsm::mad
