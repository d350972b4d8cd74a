// What the endpoint answers to a method and target, and when a scraper
// accepts gzip (q-values, "*", case).
#include "daemon/metrics/gzip.h"
#include "daemon/metrics/http_rules.h"

#include <catch2/catch.hpp>

#include <zlib.h>

using namespace ibsm::daemon::metrics;

TEST_CASE("GET and HEAD of /metrics are served; other paths 404, other methods 405")
{
    CHECK(route("GET", "/metrics").answer == Answer::metrics);
    CHECK_FALSE(route("GET", "/metrics").head);
    CHECK(route("HEAD", "/metrics").answer == Answer::metrics);
    CHECK(route("HEAD", "/metrics").head);
    CHECK(route("GET", "/metrics?name[]=x").answer == Answer::metrics);
    CHECK(route("GET", "/").answer == Answer::not_found);
    CHECK(route("GET", "/metrics/").answer == Answer::not_found);
    CHECK(route("GET", "/metricsx").answer == Answer::not_found);
    CHECK(route("GET", "http://host/metrics").answer == Answer::not_found);
    CHECK(route("POST", "/metrics").answer == Answer::method_not_allowed);
    CHECK(route("DELETE", "/metrics").answer == Answer::method_not_allowed);
    CHECK(route("get", "/metrics").answer == Answer::method_not_allowed); // methods are case-sensitive
}

TEST_CASE("gzip is sent when the client accepts it, not when it refuses it")
{
    CHECK(accepts_gzip("gzip"));
    CHECK(accepts_gzip("GZip"));
    CHECK(accepts_gzip("deflate, gzip;q=0.5"));
    CHECK(accepts_gzip("deflate, gzip, br, zstd")); // curl --compressed
    CHECK(accepts_gzip("x-gzip"));
    CHECK(accepts_gzip("*"));
    CHECK(accepts_gzip(" gzip ; q=1.0 "));
    CHECK_FALSE(accepts_gzip(""));
    CHECK_FALSE(accepts_gzip("identity"));
    CHECK_FALSE(accepts_gzip("deflate, br"));
    CHECK_FALSE(accepts_gzip("gzip;q=0"));
    CHECK_FALSE(accepts_gzip("gzip; q=0.000"));
    CHECK_FALSE(accepts_gzip("*, gzip;q=0"));
    CHECK_FALSE(accepts_gzip("*;q=0"));
    CHECK(accepts_gzip("gzip;q=0.001"));
    CHECK_FALSE(accepts_gzip("gzipped"));
}

TEST_CASE("gzip's output inflates back to its input")
{
    std::string text;
    for (int i = 0; i < 20000; ++i)
        text += "ibsmd_port_xmit_bytes_per_second{node_guid=\"0x0002c90200000a01\",port=\"" + std::to_string(i % 48) +
                "\"} " + std::to_string(i * 7) + "\n";
    const std::string z = gzip(text);
    REQUIRE(z.size() > 18);
    CHECK(static_cast<unsigned char>(z[0]) == 0x1f); // the gzip magic
    CHECK(static_cast<unsigned char>(z[1]) == 0x8b);
    CHECK(z.size() * 5 < text.size()); // repetitive text shrinks
    z_stream s{};
    REQUIRE(inflateInit2(&s, 15 + 16) == Z_OK);
    std::string back(text.size() + 16, '\0');
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
    s.avail_in = static_cast<uInt>(z.size());
    s.next_out = reinterpret_cast<Bytef*>(back.data());
    s.avail_out = static_cast<uInt>(back.size());
    CHECK(inflate(&s, Z_FINISH) == Z_STREAM_END);
    back.resize(s.total_out);
    inflateEnd(&s);
    CHECK(back == text);
    CHECK(gzip("").size() == 20); // header and trailer only
}
