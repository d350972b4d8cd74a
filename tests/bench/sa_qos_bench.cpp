// The SA's PathRecord handler with a 20-rule QoS policy against none, in
// the same run (target: at most 10 % slower with the policy).
//
//   sa_qos_bench [--hosts 648|3456] [--queries N] [--repeat R]
//
// Why in-process: through ibsim (sa_bench.sh) the simulator's packet rate
// is the ceiling, so the handler's own cost would not show; here the
// handler is called directly, as the agent calls it, on the snapshot a
// bring-up over the fake fabric produced (pgft, minhop).
//
// The policy: 8 port groups by node-description glob, 20 rules of which 19
// select on what the queries do not ask (ServiceID ranges, QoS classes,
// P_Keys, groups of no port) and the last on a destination group half the
// hosts are in: every query walks all 20 rules, the worst case of a
// first-match list. Queries: SubnAdmGet(PathRecord) by SLID and DLID drawn
// at random from the hosts' LIDs (the same sequence for both modes); the
// modes alternate R times (default 5), the best time of each is printed.
// Prints figures; judges nothing.
#include "../unit/daemon/support/fabric_loop.h"
#include "../unit/daemon/support/fake_fabric_support.h"

#include "daemon/sa/sa_paths.h"
#include "mad/sa/records.h"
#include "topology/gen_pgft.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>

using namespace ibsm;
namespace sa = ibsm::mad::sa;
using Clock = std::chrono::steady_clock;

namespace {

config::QosConfig twenty_rules()
{
    config::QosConfig q;
    q.enabled = true;
    for (int g = 0; g < 8; ++g) {
        config::QosPortGroup group;
        group.name = "g" + std::to_string(g);
        // pgft hosts are named by position; groups 0..6 match no host,
        // group 7 every host whose name ends in an even digit.
        group.node_desc = {g < 7 ? "nohost" + std::to_string(g) + "*" : "*[02468]"};
        q.port_groups.push_back(group);
    }
    for (std::uint8_t l = 1; l <= 5; ++l)
        q.levels.push_back(config::QosLevel{"l" + std::to_string(l), l, 4, std::nullopt, std::nullopt});
    for (int r = 0; r < 19; ++r) {
        config::QosRule rule;
        switch (r % 4) {
        case 0: rule.service_ids = {{0x1000u * (r + 1), 0x1000u * (r + 1) + 0xff}}; break;
        case 1: rule.qos_classes = {{static_cast<std::uint16_t>(r), static_cast<std::uint16_t>(r + 1)}}; break;
        case 2: rule.pkeys = {static_cast<std::uint16_t>(0x100 + r)}; break;
        default: rule.source = "g" + std::to_string(r % 7); break;
        }
        rule.level = "l" + std::to_string(1 + r % 5);
        q.rules.push_back(rule);
    }
    config::QosRule last;
    last.destination = "g7";
    last.level = "l3";
    q.rules.push_back(last);
    return q;
}

double run(const daemon::SubnetSnapshot& s, const std::vector<std::pair<Lid, Lid>>& pairs, std::size_t* records)
{
    sa::SaHeader h;
    h.method = sa::method::get;
    h.attr_id = sa::attr::path_record;
    h.component_mask = sa::pr_mask::slid | sa::pr_mask::dlid;
    std::vector<std::uint8_t> data(sa::data_size, 0);
    const auto start = Clock::now();
    std::size_t n = 0;
    for (const auto& [a, b] : pairs) {
        data[42] = static_cast<std::uint8_t>(a.value() >> 8), data[43] = static_cast<std::uint8_t>(a.value());
        data[40] = static_cast<std::uint8_t>(b.value() >> 8), data[41] = static_cast<std::uint8_t>(b.value());
        n += daemon::sa_path_records(daemon::SaRequest{h, data, mad::GsiAddress{a}, s}).records.size();
    }
    *records = n;
    return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

int main(int argc, char** argv)
{
    unsigned hosts = 648, queries = 200000, repeat = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        const unsigned v = static_cast<unsigned>(std::stoul(argv[i + 1]));
        if (a == "--hosts") hosts = v;
        else if (a == "--queries") queries = v;
        else if (a == "--repeat") repeat = v;
        else {
            std::fprintf(stderr, "usage: sa_qos_bench [--hosts 648|3456] [--queries N] [--repeat R]\n");
            return 2;
        }
    }
    const topology::PgftParams shape = hosts >= 3456 ? topology::PgftParams{{24, 144}, {1, 24}, {1, 1}, false}
                                                     : topology::PgftParams{{18, 36}, {1, 18}, {1, 1}, false};
    test::QuietLogs quiet;
    test::TempDir dir;
    const auto fabric = topology::generate_pgft(shape);
    test::FabricLoop loop(fabric);
    daemon::Bringup bringup(loop.transport, test::bringup_settings(dir.path, {"minhop"}));
    const auto outcome = loop.run([&] { return bringup.sweep(); });
    if (!outcome.up || !bringup.snapshot()) {
        std::fprintf(stderr, "bring-up failed: %s\n", outcome.reason.c_str());
        return 1;
    }
    const auto plain = bringup.snapshot();
    std::vector<qos::PortFacts> ports;
    std::vector<Lid> lids;
    for (const auto& [port, range] : plain->lids.lids.entries()) {
        const auto& n = plain->found.fabric.node(port.node);
        if (n.is_switch()) continue;
        ports.push_back(qos::PortFacts{n.port(port.port).guid, n.guid, n.description, false, {0x7fff}});
        lids.push_back(range.base);
    }
    auto with_policy = std::make_shared<daemon::SubnetSnapshot>(*plain);
    with_policy->qos_policy = std::make_shared<const qos::QosPolicy>(twenty_rules(), ports);
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::size_t> pick(0, lids.size() - 1);
    std::vector<std::pair<Lid, Lid>> pairs(queries);
    for (auto& p : pairs) p = {lids[pick(rng)], lids[pick(rng)]};

    std::size_t matched = 0;
    for (const auto& p : ports)
        if (with_policy->qos_policy->groups_of(p.port_guid) != 0) ++matched;
    double best_none = 1e9, best_qos = 1e9;
    std::size_t rec_none = 0, rec_qos = 0;
    for (unsigned r = 0; r < repeat; ++r) {
        best_none = std::min(best_none, run(*plain, pairs, &rec_none));
        best_qos = std::min(best_qos, run(*with_policy, pairs, &rec_qos));
    }
    std::printf("%zu hosts (%zu in the policy's matching group), %u PathRecord Gets, best of %u\n", ports.size(),
                matched, queries, repeat);
    std::printf("no policy:      %.0f queries/s (%zu records)\n", queries / best_none, rec_none);
    std::printf("20-rule policy: %.0f queries/s (%zu records)\n", queries / best_qos, rec_qos);
    std::printf("ratio (policy / none): %.3f\n", best_none / best_qos);
    return 0;
}
