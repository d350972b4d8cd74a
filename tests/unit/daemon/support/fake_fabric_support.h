// What the daemon tests against the fake fabric share: a state directory
// that disappears with the test, quiet logs, bring-up settings with a given
// engine chain, the smallest fabric with a switch-to-switch link, and the
// analyzer's verdict on what the fake switches hold.
#pragma once

#include "fake_fabric.h"
#include "temp_dir.h"

#include "daemon/sweep/bringup.h"
#include "routing/analysis/analyze.h"
#include "topology/fabric.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <string>
#include <vector>

namespace ibsm::test {

struct QuietLogs {
    QuietLogs() { spdlog::set_level(spdlog::level::warn); }
    ~QuietLogs() { spdlog::set_level(spdlog::level::info); }
};

inline daemon::BringupSettings bringup_settings(const std::filesystem::path& dir,
                                                std::vector<std::string> engines = {"minhop"})
{
    daemon::BringupSettings s;
    s.chain.engines = std::move(engines);
    s.state_dir = dir;
    return s;
}

// Two 4-port switches and four CAs:
//
//   H0 (SM) -[1] S1 [4]-[4] S2 [1]- H2
//   H1      -[2]            [2]- H3
//
// Port 3 of each switch is not cabled.
struct TwoSwitches {
    topology::Fabric f;
    topology::NodeId h0, h1, h2, h3, s1, s2;

    TwoSwitches()
    {
        using topology::NodeType;
        h0 = f.add_node(NodeType::ca, Guid(0x100), 1, "H0");
        h1 = f.add_node(NodeType::ca, Guid(0x200), 1, "H1");
        h2 = f.add_node(NodeType::ca, Guid(0x300), 1, "H2");
        h3 = f.add_node(NodeType::ca, Guid(0x400), 1, "H3");
        s1 = f.add_node(NodeType::switch_node, Guid(0x1000), 4, "S1");
        s2 = f.add_node(NodeType::switch_node, Guid(0x2000), 4, "S2");
        f.connect({h0, PortNum(1)}, {s1, PortNum(1)});
        f.connect({h1, PortNum(1)}, {s1, PortNum(2)});
        f.connect({s1, PortNum(4)}, {s2, PortNum(4)});
        f.connect({h2, PortNum(1)}, {s2, PortNum(1)});
        f.connect({h3, PortNum(1)}, {s2, PortNum(2)});
    }
};

// Two spines P0, P1 (5 ports: 1..3 to the leaves, 4..5 free) and three
// leaves L0..L2 (6 ports: 1..3 hosts, 4 to P0, 5 to P1, 6 free); nine hosts,
// H0 (the SM) on L0 port 1.
struct Tree {
    topology::Fabric f;
    std::vector<topology::NodeId> hosts, leaves, spines;

    Tree()
    {
        for (unsigned h = 0; h < 9; ++h)
            hosts.push_back(f.add_node(topology::NodeType::ca, Guid(0x100 + 0x100 * h), 1, "H" + std::to_string(h)));
        for (unsigned s = 0; s < 2; ++s)
            spines.push_back(f.add_node(topology::NodeType::switch_node, Guid(0x10000 + s), 5, "P" + std::to_string(s)));
        for (unsigned l = 0; l < 3; ++l) {
            leaves.push_back(f.add_node(topology::NodeType::switch_node, Guid(0x20000 + l), 6, "L" + std::to_string(l)));
            for (unsigned h = 0; h < 3; ++h)
                f.connect({hosts[l * 3 + h], PortNum(1)}, {leaves[l], PortNum(static_cast<std::uint8_t>(h + 1))});
            for (unsigned s = 0; s < 2; ++s)
                f.connect({leaves[l], PortNum(static_cast<std::uint8_t>(4 + s))},
                          {spines[s], PortNum(static_cast<std::uint8_t>(l + 1))});
        }
    }
    Guid host_port(unsigned h) const { return f.port(topology::PortRef{hosts[h], PortNum(1)}).guid; }
};

// Reachability, loops and credit loops of the tables read back (as
// `ibsm analyze` scores ibnetdiscover + dump_fts), without EBB and shifts.
inline routing::analysis::Report analyze_read_back(const FabricReadback& rb)
{
    routing::analysis::Options options;
    options.run_ebb = false;
    options.run_shifts = false;
    options.threads = 1;
    return routing::analysis::analyze(rb.fabric, rb.tables, options);
}

// How many 64-entry LFT blocks differ between two generations' tables.
inline std::uint64_t blocks_changed(const daemon::SubnetSnapshot& a, const daemon::SubnetSnapshot& b)
{
    std::uint64_t n = 0;
    for (const auto& [id, lft] : b.tables->lfts) {
        const Guid g = b.found.fabric.node(id).guid;
        auto before = daemon::desired_blocks(a.tables->lfts.at(*a.found.fabric.find_node(g)), a.tables->linear_fdb_top);
        auto after = daemon::desired_blocks(lft, b.tables->linear_fdb_top);
        for (std::size_t i = 0; i < after.size(); ++i) n += i >= before.size() || !(before[i] == after[i]);
    }
    return n;
}

} // namespace ibsm::test
