// One configuration sweep of the subnet, the pipeline of DESIGN.md:
//
//   discover -> LIDs -> route -> program -> activate
//
// Why: each phase is a function returning a named value (DiscoveryResult,
// LidAssignment, ChainOutcome, ProgramReport, PortReport), so the sweep
// reads like the diagram and every phase can be timed and counted on its
// own: one log line per phase with its time and SMP count, then
// `SUBNET UP` with the totals, or the reason the subnet is not up.
//
// Route computation, the guid2lid file (written while routing), the port and
// VL table plans (computed while the LFT blocks are sent) and the dump files
// run on worker threads (`compute_`): they take seconds on large fabrics,
// and the event loop must keep answering SMInfo and receiving traps
// meanwhile. They read the sweep's values, which nothing on the loop
// changes meanwhile; the plans are written only into the port programmer,
// which the loop leaves alone until they are done.
//
// State kept across sweeps of one process: the LFT programmer's confirmed
// blocks and the port programmer's first-contact set; across processes: the
// guid2lid file in the state directory.
#pragma once

#include "daemon/discovery.h"
#include "daemon/lft_programmer.h"
#include "daemon/lid_store.h"
#include "daemon/port_programmer.h"
#include "daemon/vl_programmer.h"
#include "lidassign/base_lids.h"
#include "lidassign/lid_map.h"
#include "mad/transport.h"
#include "routing/chain.h"
#include "routing/engine.h"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::daemon {

struct BringupSettings {
    routing::ChainSpec chain;
    routing::Options route;
    lidassign::BaseLidOptions lid;
    PortSettings ports;
    LftSettings lfts;
    VlSettings vls;
    std::filesystem::path state_dir;
};

struct PhaseStats {
    std::string name;
    double seconds = 0;
    std::uint64_t smps = 0;
    std::string detail;
};

struct LidAssignment {
    lidassign::LidMap lids;
    lidassign::GuidLidMap previous;
    std::vector<lidassign::LidNote> notes;
    Lid sm_lid;
};

struct ProgramReport {
    LftReport lfts;
    VlReport vls;
    PortReport ports;
    bool complete() const { return lfts.complete() && vls.complete() && ports.complete(); }
};

struct SweepOutcome {
    bool up = false;
    std::string reason; // why not, when !up
    std::vector<PhaseStats> phases;
    double seconds = 0;
    std::uint64_t smps = 0;
    std::uint64_t lft_blocks_sent = 0;
    std::string engine;
    std::size_t nodes = 0, switches = 0, cas = 0, links = 0;
    std::string summary;                    // summary.txt
    std::vector<std::string> dump_files;    // written to the state directory
};

class Bringup {
public:
    Bringup(mad::Transport& transport, BringupSettings settings);

    // Runs one sweep. Never throws for fabric problems (they make the
    // outcome not up, with the reason); throws for local I/O errors (state
    // directory) and bugs.
    boost::asio::awaitable<SweepOutcome> sweep();

    // A reloaded configuration for the next sweep: routing chain and
    // options, LMC, OperationalVLs cap, switch SL2VL policy. The state directory, SMP settings and
    // programmer state stay (they need a restart to change).
    void reconfigure(const BringupSettings& settings);

    // Called when a sweep has brought the subnet up, before the dump files
    // are written (the SM reports MASTER from then on).
    void on_subnet_up(std::function<void()> f) { on_up_ = std::move(f); }

private:
    LidAssignment assign_lids(const DiscoveryResult& found) const;
    routing::ChainOutcome route(const DiscoveryResult& found, const LidAssignment& lids) const;
    // Runs f() on the worker thread; resumes the caller on its own executor.
    template <class F>
    boost::asio::awaitable<std::invoke_result_t<F>> off_loop(F f);
    boost::asio::awaitable<ProgramReport> program(const DiscoveryResult& found, const LidAssignment& lids,
                                                  const routing::RoutingTables& tables);
    boost::asio::awaitable<PortReport> activate();
    void apply_pending();

    mad::Transport& transport_;
    BringupSettings settings_;
    std::optional<BringupSettings> pending_;
    LidStore store_;
    LftProgrammer lfts_;
    PortProgrammer ports_;
    VlProgrammer vls_;
    boost::asio::thread_pool compute_{2}; // routing and the guid2lid file side by side
    std::function<void()> on_up_;
};

} // namespace ibsm::daemon
