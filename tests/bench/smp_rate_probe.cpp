// Measures the simulator's (or a fabric's) raw SMP answer rate: keeps K
// NodeInfo Gets outstanding to one DR path for a fixed number of answers,
// with nothing else going on -- the ceiling a discovery sweep can reach.
//
// usage: smp_rate_probe [--outstanding K] [--count N] [--path 0,1]
#include "mad/node_info.h"
#include "mad/smp.h"
#include "mad/umad_port.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv)
{
    unsigned k = 16;
    unsigned count = 50000;
    std::string path_text = "0,1";
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--outstanding") k = static_cast<unsigned>(std::atoi(argv[i + 1]));
        else if (a == "--count") count = static_cast<unsigned>(std::atoi(argv[i + 1]));
        else if (a == "--path") path_text = argv[i + 1];
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 64;
        }
    }
    auto path = ibsm::DrPath::parse(path_text);
    if (!path || k == 0) {
        std::fprintf(stderr, "bad --path or --outstanding\n");
        return 64;
    }
    try {
        ibsm::mad::UmadPort port("", 0, false);
        std::uint32_t tid = 1;
        unsigned sent = 0, answered = 0, inflight = 0;
        auto send_one = [&] {
            auto smp = ibsm::mad::make_dr_request(ibsm::mad::Method::get, *path, ibsm::mad::attr::node_info, 0, tid++);
            if (!port.send(smp, ibsm::Lid{}, 1000)) {
                std::fprintf(stderr, "send failed\n");
                std::exit(1);
            }
            ++sent;
            ++inflight;
        };
        auto start = std::chrono::steady_clock::now();
        while (inflight < k && sent < count) send_one();
        while (answered < count) {
            if (!port.wait_readable(1000)) {
                std::fprintf(stderr, "no answer within 1 s (%u answered)\n", answered);
                return 1;
            }
            while (auto r = port.try_receive()) {
                if (!r->smp.is_response()) continue;
                ++answered;
                --inflight;
                if (sent < count) send_one();
            }
        }
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("outstanding %u: %u answers in %.3f s = %.0f SMPs/s\n", k, answered, secs, answered / secs);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
