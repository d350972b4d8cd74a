// PortInfo programming and port activation.
//
// Why: a port forwards data only once it is ACTIVE, and the SM must first
// give it its LID, LMC, MasterSMLID, subnet prefix and timeout, and agree
// NeighborMTU and OperationalVLs with the far end. Port states move
// INIT -> ARMED -> ACTIVE, and a port can go ACTIVE only when its neighbour
// is ARMED or ACTIVE, so arming must finish fabric-wide before activation.
//
// Data structures: the plan, one entry per port to touch: its attribute
// modifier, the PortInfo read during discovery and the desired one (a
// read-modify-write of it, with the "no change" encodings in the state
// fields). A port's DR path and name are made from the sweep's discovery
// result when an SMP goes to it or a message names it: on a re-route
// nearly every port is planned and none is sent to (165 888 ports at
// 27 648 hosts, a string allocated for each). `contacted_` (node GUID, port) remembers which ports this
// process has configured, for ClientReregister on first contact.
//
// Algorithm: prepare() builds the plan from the discovery result and the
// LIDs, ordered port-major so consecutive SMPs go to different switches.
// configure() sends the desired PortInfo (state unchanged) to ports that
// will not be activated and whose settings differ: switch port 0 and ports
// already ACTIVE (switch ports and CA ports in two calls, so the bring-up
// overlaps the first with the LFT blocks). activate() runs two fabric-wide phases: every INIT port
// gets its desired PortInfo with PortState ARMED in one Set (LID and state
// arrive together), then every armed port gets PortState ACTIVE (with
// ClientReregister on a CA port's first contact). Each Set's response is
// checked for the state asked for.
//
// Fields a port does not hold (kept_port_fields.h): after a Set whose
// answer matches everything but VLHighLimit, SubnetTimeout, MasterSMSL or
// M_KeyLeasePeriod, the port is asked for what it keeps from then on (one
// log line per port and field: a warning for the policy's VLHighLimit), so
// no heavy sweep re-sends the Set and the confirmed fabric never claims
// what the port did not take.
#pragma once

#include "daemon/core/fabric_state.h"
#include "daemon/core/mkey_book.h"
#include "daemon/program/kept_port_fields.h"
#include "lidassign/lid_map.h"
#include "mad/port_info.h"
#include "mad/transport.h"
#include "qos/qos_policy.h"
#include "qos/sl_vl_plan.h"
#include "routing/sl_table.h"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <unordered_set>
#include <vector>

namespace ibsm::daemon {

struct PortSettings {
    std::uint64_t subnet_prefix = 0xfe80000000000000ULL;
    std::uint8_t subnet_timeout = 18;      // 5 bits
    std::uint8_t max_operational_vls = 4;  // PortInfo encoding: 1=VL0, 2=VL0-1, 3=VL0-3, 4=VL0-7, 5=VL0-14
    std::size_t width = 64;                // jobs in flight
    unsigned set_rounds = 3;               // Sends of one Set when the port shows it never arrived
    // Partition enforcement: switch ports facing a CA filter by the P_Key
    // table written there (pkey_programmer.h), in the directions
    // part_enforce asks for (enforce_in, enforce_out) and SwitchInfo says
    // the switch can; ports between switches do not. Off: the bits are left
    // as the ports hold them.
    bool enforce_partitions = false;
    bool enforce_in = true;
    bool enforce_out = true;
    // ClientReregister on every CA port this process has not configured
    // yet: the SA's groups and subscriptions live in memory and start empty
    // in a new process (a restart, a standby taking over), so hosts must
    // join again. Off for `ibsmd --once`: no SA serves after the run, and an
    // unchanged port then gets no Set at all.
    bool client_reregister = true;
    // Switch ports (node GUID, port) facing a CA whose P_Keys do not fit
    // the switch's enforcement table (PKeyProgrammer::unenforced): they do
    // not enforce, or the CA's traffic in the keys left out would be dropped.
    std::set<std::pair<Guid, std::uint8_t>> unenforced;
};

// PortInfo OperationalVLs encoding of at most `vls` data VLs (1, 2, 4, 8, 15).
std::uint8_t operational_vls_code(unsigned vls);

struct PortPlanEntry {
    topology::PortRef port;
    Guid node_guid;
    std::uint32_t attr_mod = 0;
    mad::PortInfo current;
    mad::PortInfo desired;  // PortState no_change
    bool config_differs = false;
    bool activate = false;  // cabled, far end known, in INIT or ARMED
    bool reregister = false;
    bool carries_lid = false; // CA port or switch port 0: LID, LMC, MasterSMLID live here
    bool answered = false;    // `current` is a Set's answer or a read-back, no longer discovery's PortInfo
};

// Pure: does `got` (a port read back) show the effect of a Set of `desired`
// with PortState `asked` (no_change: settings only)? ARMED is shown by an
// ARMED or ACTIVE port. Settings: LID, LMC and MasterSMLID where the port
// carries them (`lid_port`: CA ports and switch port 0), OperationalVLs
// where one was asked for; the fields every SMA stores as written.
bool shows_effect(const mad::PortInfo& got, const mad::PortInfo& desired, mad::PortState asked, bool lid_port);

// The desired PortInfo of one port (pure): see the header comment. `far`:
// the PortInfo of the port cabled to it (null: none read).
mad::PortInfo desired_port_info(const DiscoveryResult& found, const lidassign::LidMap& lids, Lid sm_lid,
                                const PortSettings& settings, topology::PortRef port, const mad::PortInfo& current,
                                const mad::PortInfo* far, const routing::SlTable* sls, const MkeySettings* mkeys);
// The same, with the far end's PortInfo looked up in `found`.
// `sls`: the routing's SL per (source port, destination LID) when it uses
// several (dfsssp); MasterSMSL becomes the SL of the port's route to the SM,
// so its traps and SA queries travel on a deadlock-free layer. `mkeys`:
// M_Key, M_KeyProtectBits and M_KeyLeasePeriod of CA ports and switch
// port 0 (where IBA keeps them) as the key book's settings want them; the
// same Set that carries the LID carries them, so M_Key costs no SMP of its
// own.
mad::PortInfo desired_port_info(const DiscoveryResult& found, const lidassign::LidMap& lids, Lid sm_lid,
                                const PortSettings& settings, topology::PortRef port, const mad::PortInfo& current,
                                const routing::SlTable* sls = nullptr, const MkeySettings* mkeys = nullptr);

// Which ports configure() sends to: switch ports (port 0 included), or
// CA and router ports, whose LID and MasterSMLID the LFTs must route first.
enum class PortSide : std::uint8_t { all, switches, end_ports };

struct PortReport {
    std::uint64_t sets = 0;
    std::uint64_t failed = 0;
    std::uint64_t configured = 0;
    std::uint64_t armed = 0;
    std::uint64_t activated = 0;
    std::uint64_t reads = 0;          // PortInfo Gets after a failed Set
    std::uint64_t confirmed_by_read = 0; // failed Sets whose effect the Get showed
    std::vector<std::string> failures; // the first few
    bool complete() const { return failed == 0; }
    // Adds another configure()'s figures (the failures kept stay the first few).
    void add(const PortReport& o);
};

class PortProgrammer {
public:
    explicit PortProgrammer(PortSettings settings) : settings_(settings) {}

    // Builds the plan for this sweep. `sm_lid`: the LID of the SM's port;
    // `sls`: see desired_port_info. With a QoS plan (`sl_vl` from a policy),
    // VLHighLimit is the high limit of the port's arbitration tables
    // (port_vl_tables.h; `policy` places CA ports in their groups); without
    // one each port keeps its own. `found` must outlive the sweep's
    // configure() and activate() (they make paths and names from it) and
    // the release_plan() that ends them.
    void prepare(const DiscoveryResult& found, const lidassign::LidMap& lids, Lid sm_lid,
                 const routing::SlTable* sls = nullptr, const qos::SlVlPlan* sl_vl = nullptr,
                 const qos::QosPolicy* policy = nullptr);
    const std::vector<PortPlanEntry>& plan() const { return plan_; }
    // Once the sweep's confirmed state is taken from it: the plan (two
    // PortInfo per port: 36 MB at 27 648 hosts) is not kept between
    // sweeps; the next prepare() builds it again.
    void release_plan();
    void set_max_operational_vls(std::uint8_t code) { settings_.max_operational_vls = code; }
    void set_partition_enforcement(bool in, bool out)
    {
        settings_.enforce_in = in;
        settings_.enforce_out = out;
    }
    // Before prepare(): this sweep's PortSettings::unenforced.
    void set_unenforced(std::set<std::pair<Guid, std::uint8_t>> ports) { settings_.unenforced = std::move(ports); }
    // The ports' M_Keys come from this book (null: left as the ports hold
    // them); learn_keys() teaches it the sweep's DR paths, activate() ends
    // a rotation that every port has taken.
    void set_mkeys(MkeyBook* book) { mkeys_ = book; }
    // On the loop, before prepare(): the key book learns the sweep's ports
    // and prepare() takes a copy of its settings. The book is the
    // transport's and `ibsm mkey rotate` changes it on the loop, so
    // prepare()'s worker thread never touches it.
    // With M_Key off it also notes the ports still holding a key the SM set,
    // so prepare() clears them.
    void learn_keys(const DiscoveryResult& found);

    // What the ports were found to keep (kept_port_fields.h), for the state
    // directory; set_kept() before the first prepare() of a new process.
    const KeptPortFields& kept() const { return kept_; }
    void set_kept(KeptPortFields kept) { kept_ = std::move(kept); }

    boost::asio::awaitable<PortReport> configure(mad::Transport& transport, PortSide side = PortSide::all);
    boost::asio::awaitable<PortReport> activate(mad::Transport& transport);

private:
    // true when the port holds the state and settings (see the header).
    boost::asio::awaitable<bool> set_state(mad::Transport& transport, PortPlanEntry& e, mad::PortState state,
                                           bool reregister, PortReport& report);

    // Kept-field messages of one phase, by text: a few ports by name, the
    // rest counted (ibsim keeps SubnetTimeout on every port: 45 648 lines
    // at 43 776 hosts otherwise).
    struct KeptNotes {
        bool warn = false;
        std::size_t ports = 0;
        std::vector<std::string> names; // the first few
    };
    void log_kept_notes();

    PortSettings settings_;
    std::vector<PortPlanEntry> plan_;
    const DiscoveryResult* found_ = nullptr; // prepare()'s, until release_plan()
    std::map<std::string, KeptNotes> kept_notes_;
    std::set<std::pair<Guid, std::uint8_t>> contacted_;
    KeptPortFields kept_;
    MkeyBook* mkeys_ = nullptr;
    std::optional<MkeySettings> mkey_settings_; // learn_keys()'s copy, for prepare()
    std::unordered_set<Guid> clear_keys_;       // M_Key off: checking ports whose key the SM clears
};

} // namespace ibsm::daemon
