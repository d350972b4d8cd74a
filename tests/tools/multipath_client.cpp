// multipath_client: one MultiPathRecord GetMulti (IBA 15.2.5.17) written the
// way a client of the kernel's RMPP writes it: an agent registered with RMPP
// version 1, the whole request in one umad_send (RMPP Active, the segment
// fields left to the layer below), the whole answer from one umad_recv.
// On ibsim that layer is libibsim-rmpp.so (scripts/ibsim-client), so this
// checks its sender side and the SA's reassembly of a request in several
// segments (tests/integration/sa_whole_tables.sh).
//
//   multipath_client SA_LID SGUID DGUID... [--repeat N]
//       SGIDCount 1, DGIDCount = number of DGUIDs x N, default GID prefix.
//       Prints "status 0x.... records R length L" and one
//       "path SLID DLID" line per PathRecord; exit 0 when answered, 1 when
//       the answer has an error status or none came within 5 s.
//
// libumad2sim wraps open() but not open64(); see capture_smp.cpp.
#undef _FILE_OFFSET_BITS

#include "mad/sa/records.h"
#include "mad/sa/rmpp_wire.h"
#include "mad/sa/sa_mad.h"

#include <infiniband/umad.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace ibsm;
namespace sa = ibsm::mad::sa;

namespace {

[[noreturn]] void die(const std::string& why)
{
    std::fprintf(stderr, "multipath_client: %s\n", why.c_str());
    std::fflush(stdout);
    std::_Exit(2);
}

std::uint64_t number(const char* s)
{
    char* end = nullptr;
    const auto v = std::strtoull(s, &end, 0);
    if (!*s || *end) die(std::string("not a number: ") + s);
    return v;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 4) die("usage: multipath_client SA_LID SGUID DGUID... [--repeat N]");
    const auto sa_lid = static_cast<std::uint16_t>(number(argv[1]));
    sa::MultiPathRecord q;
    q.sgids.push_back(sa::make_gid(sa::default_gid_prefix, Guid(number(argv[2]))));
    std::vector<Guid> dguids;
    unsigned repeat = 1;
    for (int i = 3; i < argc; ++i) {
        if (std::string(argv[i]) == "--repeat" && i + 1 < argc) repeat = static_cast<unsigned>(number(argv[++i]));
        else dguids.push_back(Guid(number(argv[i])));
    }
    for (unsigned r = 0; r < repeat; ++r)
        for (auto g : dguids) q.dgids.push_back(sa::make_gid(sa::default_gid_prefix, g));
    if (q.dgids.empty() || q.dgids.size() > 255) die("1..255 DGIDs");

    sa::SaHeader h;
    h.method = sa::method::get_multi;
    h.tid = 0x4d50;
    h.attr_id = sa::attr::multipath_record;
    h.component_mask = sa::mpr_mask::sgid_count | sa::mpr_mask::dgid_count;
    h.rmpp.version = 1;
    h.rmpp.type = sa::RmppType::data;
    h.rmpp.flags = sa::rmpp_flag::active;
    const auto record = sa::encode(q);
    std::vector<std::uint8_t> mad(sa::header_size + record.size());
    sa::encode_header(h, mad);
    std::copy(record.begin(), record.end(), mad.begin() + sa::header_size);

    if (umad_init() < 0) die("umad_init failed");
    const int port = umad_open_port(nullptr, 0);
    if (port < 0) die("umad_open_port failed");
    const int agent = umad_register(port, sa::mgmt_class, sa::class_version, 1, nullptr);
    if (agent < 0) die("umad_register(class 3, RMPP 1) failed");
    std::vector<std::uint8_t> buf(umad_size() + mad.size(), 0);
    std::memcpy(umad_get_mad(buf.data()), mad.data(), mad.size());
    umad_set_addr(buf.data(), sa_lid, 1, 0, static_cast<int>(sa::gsi_qkey));
    if (umad_send(port, agent, buf.data(), static_cast<int>(mad.size()), 5000, 0) < 0) die("umad_send failed");

    // The answer's length is not known in advance: ask with room for one
    // MAD, grow on ENOSPC (what libibumad clients do with the kernel).
    int len = static_cast<int>(sa::mad_size);
    std::vector<std::uint8_t> in(umad_size() + sa::mad_size);
    int got = umad_recv(port, in.data(), &len, 5000);
    if (got < 0 && errno == ENOSPC) {
        in.resize(umad_size() + static_cast<std::size_t>(len));
        got = umad_recv(port, in.data(), &len, 5000);
    }
    if (got < 0) {
        std::printf("no answer (%s)\n", std::strerror(errno));
        return 1;
    }
    if (umad_status(in.data()) != 0) {
        std::printf("umad status %d\n", umad_status(in.data()));
        return 1;
    }
    const auto* answer = static_cast<const std::uint8_t*>(umad_get_mad(in.data()));
    const auto ah = sa::decode_header(std::span<const std::uint8_t>(answer, static_cast<std::size_t>(len)));
    if (!ah) die("answer shorter than the SA header");
    const std::size_t stride = std::size_t{ah->attr_offset} * 8;
    const std::size_t records = stride ? (static_cast<std::size_t>(len) - sa::header_size) / stride : 0;
    std::printf("status 0x%04x records %zu length %d\n", ah->status, records, len);
    for (std::size_t i = 0; i < records; ++i) {
        const auto pr = sa::decode_path_record(
            std::span<const std::uint8_t>(answer + sa::header_size + i * stride, sa::path_record_size));
        if (pr) std::printf("path %u %u\n", pr->slid.value(), pr->dlid.value());
    }
    // Let go of the port as saquery does: the layer below (the kernel, or
    // libibsim-rmpp.so) sees the client leave after its last ACK.
    umad_unregister(port, agent);
    umad_close_port(port);
    return ah->status == 0 ? 0 : 1;
}
