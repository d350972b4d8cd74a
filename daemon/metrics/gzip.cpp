#include "daemon/metrics/gzip.h"

#include <zlib.h>

#include <stdexcept>

namespace ibsm::daemon::metrics {

std::string gzip(std::string_view data, int level)
{
    if (data.size() > 0xffffffffu / 2) throw std::runtime_error("gzip: body of " + std::to_string(data.size()) + " bytes");
    z_stream z{};
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("gzip: deflateInit2 failed");
    std::string out;
    out.resize(deflateBound(&z, static_cast<uLong>(data.size())) + 32);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    const std::string why = z.msg ? z.msg : "no room";
    const auto written = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) throw std::runtime_error("gzip: deflate failed: " + why);
    out.resize(written);
    return out;
}

} // namespace ibsm::daemon::metrics
