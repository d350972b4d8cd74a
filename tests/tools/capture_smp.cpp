// capture_smp: sends one SMP Get and prints the 256-byte response as hex, so
// the codec tests can decode bytes a real SMA (here: ibsim) produced rather
// than bytes our own encoder wrote.
//
//   capture_smp ATTRIBUTE DR-PATH [ATTR-MOD]
//   capture_smp --trap SECONDS [TRAP-NUMBER]
//
// ATTRIBUTE is nodeinfo, nodedesc, portinfo, switchinfo, lft, sl2vl, vlarb,
// sminfo or a number (0x11). DR-PATH is "0" for the local node, "0,1" for the
// node behind local port 1, as smpquery -D takes it. --trap waits up to
// SECONDS for a LID-routed SubnTrap sent to this port (run it where the
// ports' SMLid points), optionally skipping traps of other numbers, and
// prints it. Run under ibsim with LD_PRELOAD=libumad2sim.so; see
// tests/data/mad/README.md.
//
// libumad2sim wraps open() but not open64(), which <fcntl.h> substitutes
// under Meson's default -D_FILE_OFFSET_BITS=64; off_t is 64-bit on LP64
// anyway, so dropping the macro only keeps the issm open() visible to ibsim.
#undef _FILE_OFFSET_BITS

#include "mad/smp.h"
#include "mad/types.h"

#include <infiniband/umad.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

using namespace ibsm;

namespace {

constexpr int timeout_ms = 1000;
constexpr int retries = 3;

std::optional<std::uint32_t> parse_number(const char* s)
{
    errno = 0;
    char* end = nullptr;
    const unsigned long v = std::strtoul(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0' || v > 0xFFFFFFFFul) return std::nullopt;
    return static_cast<std::uint32_t>(v);
}

std::optional<std::uint16_t> parse_attribute(const char* s)
{
    static const std::map<std::string_view, std::uint16_t> names = {
        {"nodeinfo", mad::attr::node_info},     {"nodedesc", mad::attr::node_description},
        {"portinfo", mad::attr::port_info},     {"switchinfo", mad::attr::switch_info},
        {"lft", mad::attr::linear_forwarding_table}, {"sl2vl", mad::attr::sl2vl_table},
        {"vlarb", mad::attr::vl_arbitration},   {"sminfo", mad::attr::sm_info},
    };
    if (auto it = names.find(s); it != names.end()) return it->second;
    auto n = parse_number(s);
    if (!n || *n > 0xFFFF) return std::nullopt;
    return static_cast<std::uint16_t>(*n);
}

int usage()
{
    std::fprintf(stderr, "usage: capture_smp ATTRIBUTE DR-PATH [ATTR-MOD]\n"
                         "       capture_smp --trap SECONDS [TRAP-NUMBER]\n"
                         "  ATTRIBUTE: nodeinfo nodedesc portinfo switchinfo lft sl2vl vlarb sminfo | number\n"
                         "  DR-PATH:   0 (local node), 0,1 (behind local port 1), ...\n");
    return 2;
}

void print_mad(std::span<const std::uint8_t, mad::mad_size> bytes)
{
    for (std::size_t i = 0; i < bytes.size(); ++i)
        std::printf("%02x%c", bytes[i], (i % 16 == 15) ? '\n' : ' ');
}

int open_port(int& port)
{
    if (umad_init() < 0) {
        std::fprintf(stderr, "capture_smp: umad_init failed\n");
        return 1;
    }
    port = umad_open_port(nullptr, 0);
    if (port < 0) {
        std::fprintf(stderr, "capture_smp: umad_open_port failed: %s\n", std::strerror(-port));
        return 1;
    }
    return 0;
}

// Closes the umad port and the issm device however capture_trap returns.
struct TrapListener {
    int port = -1;
    int issm_fd = -1;
    ~TrapListener()
    {
        if (port >= 0) umad_close_port(port);
        if (issm_fd >= 0) ::close(issm_fd);
    }
};

int capture_trap(const char* seconds_arg, const char* trap_arg)
{
    const auto seconds = parse_number(seconds_arg);
    if (!seconds || *seconds == 0 || *seconds > 3600) {
        std::fprintf(stderr, "capture_smp: bad timeout '%s'\n", seconds_arg);
        return usage();
    }
    std::optional<std::uint32_t> wanted;
    if (trap_arg && !(wanted = parse_number(trap_arg))) {
        std::fprintf(stderr, "capture_smp: bad trap number '%s'\n", trap_arg);
        return usage();
    }
    TrapListener l;
    if (int rc = open_port(l.port); rc != 0) return rc;
    // Traps go to the port's SM: holding the issm device open is how a
    // process claims IsSM (ibsim forwards requests only to such clients).
    char issm_path[256];
    if (umad_get_issm_path(nullptr, 0, issm_path, sizeof issm_path) < 0) {
        std::fprintf(stderr, "capture_smp: cannot find the issm device\n");
        return 1;
    }
    l.issm_fd = ::open(issm_path, O_RDWR);
    if (l.issm_fd < 0) {
        std::fprintf(stderr, "capture_smp: open %s: %s\n", issm_path, std::strerror(errno));
        return 1;
    }
    // Unsolicited requests reach an agent only for the methods it names.
    long method_mask[16 / sizeof(long)] = {};
    method_mask[0] = 1L << static_cast<int>(mad::Method::trap);
    const int agent = umad_register(l.port, mad::mgmt_class_lid_routed, 1, 0, method_mask);
    if (agent < 0) {
        std::fprintf(stderr, "capture_smp: umad_register(class 0x01, Trap) failed: %s\n", std::strerror(-agent));
        return 1;
    }
    std::vector<std::uint8_t> buf(umad_size() + mad::mad_size);
    for (;;) {
        int len = static_cast<int>(mad::mad_size);
        const int rc = umad_recv(l.port, buf.data(), &len, static_cast<int>(*seconds) * 1000);
        if (rc < 0) {
            std::fprintf(stderr, "capture_smp: no trap within %u s: %s\n", *seconds, std::strerror(-rc));
            return 1;
        }
        const auto* mad_bytes = static_cast<const std::uint8_t*>(umad_get_mad(buf.data()));
        const mad::Smp trap = mad::Smp::from_bytes(std::span<const std::uint8_t>(mad_bytes, mad::mad_size));
        // TrapNumber sits at bytes 4-5 of the Notice.
        const unsigned number = static_cast<unsigned>(trap.data()[4] << 8 | trap.data()[5]);
        if (wanted && number != *wanted) {
            std::fprintf(stderr, "capture_smp: skipping trap %u\n", number);
            continue;
        }
        std::printf("# capture_smp --trap: method 0x%02x attr 0x%04x trap %u\n", trap.method(), trap.attr_id(),
                    number);
        print_mad(trap.bytes());
        return 0;
    }
}

} // namespace

int main(int argc, char** argv)
{
    if ((argc == 3 || argc == 4) && std::string_view(argv[1]) == "--trap")
        return capture_trap(argv[2], argc == 4 ? argv[3] : nullptr);
    if (argc < 3 || argc > 4) return usage();
    const auto attr = parse_attribute(argv[1]);
    if (!attr) {
        std::fprintf(stderr, "capture_smp: unknown attribute '%s'\n", argv[1]);
        return usage();
    }
    const auto path = DrPath::parse(argv[2]);
    if (!path) {
        std::fprintf(stderr, "capture_smp: bad directed-route path '%s'\n", argv[2]);
        return usage();
    }
    std::uint32_t attr_mod = 0;
    if (argc == 4) {
        auto m = parse_number(argv[3]);
        if (!m) {
            std::fprintf(stderr, "capture_smp: bad attribute modifier '%s'\n", argv[3]);
            return usage();
        }
        attr_mod = *m;
    }

    int port = -1;
    if (int rc = open_port(port); rc != 0) return rc;
    const int agent = umad_register(port, mad::mgmt_class_directed_route, 1, 0, nullptr);
    if (agent < 0) {
        std::fprintf(stderr, "capture_smp: umad_register(class 0x81) failed: %s\n", std::strerror(-agent));
        umad_close_port(port);
        return 1;
    }

    const std::uint64_t tid = 0x5a5a0000u | static_cast<std::uint32_t>(*attr);
    const mad::Smp req = mad::make_dr_request(mad::Method::get, *path, *attr, attr_mod, tid);

    std::vector<std::uint8_t> buf(umad_size() + mad::mad_size);
    auto* mad_bytes = static_cast<std::uint8_t*>(umad_get_mad(buf.data()));
    std::memcpy(mad_bytes, req.bytes().data(), mad::mad_size);
    umad_set_addr(buf.data(), Lid::permissive, 0, 0, 0);

    int rc = umad_send(port, agent, buf.data(), static_cast<int>(mad::mad_size), timeout_ms, retries);
    if (rc < 0) {
        std::fprintf(stderr, "capture_smp: umad_send failed: %s\n", std::strerror(-rc));
        umad_close_port(port);
        return 1;
    }
    int len = static_cast<int>(mad::mad_size);
    rc = umad_recv(port, buf.data(), &len, timeout_ms * (retries + 1));
    if (rc < 0) {
        std::fprintf(stderr, "capture_smp: umad_recv failed: %s\n", std::strerror(-rc));
        umad_close_port(port);
        return 1;
    }
    if (const int st = umad_status(buf.data()); st != 0) {
        std::fprintf(stderr, "capture_smp: no response (umad status %d: %s)\n", st, std::strerror(st));
        umad_close_port(port);
        return 1;
    }
    const mad::Smp resp = mad::Smp::from_bytes(std::span<const std::uint8_t>(mad_bytes, mad::mad_size));
    umad_close_port(port);
    if (!resp.is_response() || resp.attr_id() != *attr) {
        std::fprintf(stderr, "capture_smp: unexpected MAD (method 0x%02x attr 0x%04x)\n", resp.method(),
                     resp.attr_id());
        return 1;
    }

    std::printf("# capture_smp %s %s attr-mod 0x%x: SubnGetResp, status 0x%04x\n", argv[1], path->str().c_str(),
                attr_mod, resp.status());
    print_mad(resp.bytes());
    return resp.status() == 0 ? 0 : 3;
}
