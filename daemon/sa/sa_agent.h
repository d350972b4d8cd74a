// The Subnet Administrator's front end (IBA 15): receives class-0x03 MADs
// on the SM's port, checks them, hands each to the handler registered for
// its attribute, and answers: GetResp for Get/Set, DeleteResp for Delete,
// GetTableResp through our own RMPP sender for GetTable. Record families
// (sa_records.*, sa_paths.*, sa_services.*, and multicast/partitions in
// their own files) register themselves with handle().
//
// Why one agent with a registry: every SA attribute shares the same
// checks, status codes (IBA 15.2.1.1) and RMPP machinery; the record code
// only turns a query plus the subnet into records, so it is a pure function
// of (request, snapshot) and testable without a port.
//
// Consistency with routing (an SA answer never names a route the switches
// do not have yet): handlers read the snapshot published with publish(),
// which the publisher (publish/publisher.h) calls only when a sweep's
// outcome is up, i.e. when the switches confirmed that generation's tables.
// During a re-route queries keep being answered from the previous one.
//
// Sweeps first: requests and answers cross the same simulator (or the same
// SM port and links) as the sweep's SMPs, and are handled on the same loop;
// answered at full speed, 64 outstanding PathRecord queries made a heavy
// sweep three times slower (tests/bench/sa_bench.sh). While the SM works
// (busy(): a piece of work in progress, route computation included, as the
// work probe says, or SMPs queued, in flight or backing off; counter
// queries, class 0x04, are not the SM's work) the agent therefore answers
// at most `busy_rate` requests a second (500: 1 000 packets/s through the
// simulator beside a heavy sweep's ~60 000 SMPs/s; at 2 000 a 3 456-host
// sweep took 8 % longer) and queues the rest (a client keeping N
// outstanding then sends no more than it gets answers); the backlog drains
// at full speed when the transport is idle again. Beyond `backlog_max` queued requests the oldest
// are dropped (the clients' retries cover them), never the SM's loop.
//
// Requests longer than one MAD (a GetMulti with many GIDs) arrive as RMPP
// DATA segments: `requests_` reassembles them (mad/sa/rmpp_receiver.h, one
// per (requester LID, TID), ACKing each window) like the protocol traffic
// below, without waiting behind a sweep, and the whole request is then
// answered as any other; a requester that goes quiet is ABORTed.
//
// Data structures: `handlers_` by attribute id (record size, methods,
// function); `transfers_` the RMPP answers in flight by (requester LID,
// TID), each with its RmppSender and one timer; `requests_` the requests
// being received, by the same key, each with its RmppReceiver and a timer; `reports_` the Reports we
// sent (InformInfo subscribers) waiting for their ReportResp, by TID;
// `backlog_` the requests held while a sweep runs, with a token bucket and
// one timer. Everything runs on the io_context; a handler must not block.
#pragma once

#include "daemon/core/subnet.h"
#include "daemon/sa/sa_trust.h"
#include "mad/sa/rmpp_receiver.h"
#include "mad/sa/rmpp_sender.h"
#include "mad/sa/sa_mad.h"
#include "mad/transport.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace ibsm::daemon {

// What a record handler is given.
struct SaRequest {
    mad::sa::SaHeader header;          // decoded MAD + RMPP + SA header
    std::span<const std::uint8_t> record; // the request's data area (200 bytes; the query record)
    mad::GsiAddress requester;         // where the answer goes (LID, QP)
    const SubnetSnapshot& snapshot;    // last confirmed generation
    // The request carried the configured SM_Key (sa_trust.h): it may see
    // what untrusted requesters may not.
    bool trusted = false;
};

// What it returns: records (each at most the registered record size; the
// agent pads them to AttributeOffset) or an SA/MAD status
// (mad::sa::status). For Get the agent turns 0 records into NO_RECORDS and
// more than one into TOO_MANY_RECORDS; for Set/Delete the first record is
// echoed in the answer.
struct SaAnswer {
    std::uint16_t status = mad::sa::status::ok;
    std::vector<std::vector<std::uint8_t>> records;

    static SaAnswer error(std::uint16_t s) { return SaAnswer{s, {}}; }
};

using SaHandler = std::function<SaAnswer(const SaRequest&)>;

struct SaSettings {
    // Per window of RMPP segments: how long to wait for the receiver's ACK,
    // and how many times to resend before giving up with ABORT.
    std::chrono::milliseconds rmpp_timeout{200};
    unsigned rmpp_retries = 3;
    // Requests in several segments: segments per ACK, the longest request
    // taken (a GetMulti of 255 + 255 GIDs needs 42), and how long the
    // requester may go quiet before the transfer is ABORTed.
    std::uint32_t rmpp_request_window = 16;
    std::uint32_t rmpp_request_max_segments = 64;
    std::chrono::milliseconds rmpp_request_timeout{2000};
    // Reports (InformInfo subscribers): resend interval and attempts.
    std::chrono::milliseconds report_timeout{500};
    unsigned report_retries = 3;
    std::size_t max_transfers = 256; // concurrent RMPP answers; more get NO_RESOURCES
    // While the SM works (busy probe): requests answered per second, the
    // rest queued (0: no limit), and how many may wait.
    unsigned busy_rate = 500;
    std::size_t backlog_max = 4096;
    // sm.sm_key: requests carrying it are trusted (sa_trust.h); 0: none is.
    std::uint64_t sm_key = 0;
};

struct SaCounters {
    std::uint64_t received = 0;
    std::uint64_t answered = 0;      // responses sent (a GetTable's RMPP transfer counts once)
    std::uint64_t errors = 0;        // of those, with a non-zero status
    std::uint64_t malformed = 0;     // truncated, bad version
    std::uint64_t rmpp_transfers = 0; // multi-segment GetTable answers started
    std::uint64_t rmpp_segments = 0;  // DATA segments sent, resends included
    std::uint64_t rmpp_completed = 0;
    std::uint64_t rmpp_aborted = 0;
    std::uint64_t rmpp_requests = 0;         // multi-segment requests reassembled and answered
    std::uint64_t rmpp_requests_aborted = 0; // ... given up (bad segment, too long, requester quiet)
    std::uint64_t reports_sent = 0;   // every attempt
    std::uint64_t reports_acked = 0;
    std::uint64_t reports_failed = 0; // retries spent without ReportResp
    std::uint64_t send_failures = 0;
    std::uint64_t deferred = 0;        // requests queued behind a sweep
    std::uint64_t backlog_dropped = 0; // queued requests dropped (backlog full)
    std::uint64_t trusted = 0;         // requests carrying the SM_Key
    std::uint64_t wrong_key = 0;       // discarded: a non-zero SM_Key not ours
    std::uint64_t denied = 0;          // untrusted Sets/Deletes refused (ERR_REQ_DENIED)
};

class SaAgent {
public:
    SaAgent(boost::asio::io_context& io, mad::Transport& transport, SaSettings settings = {});
    ~SaAgent();
    SaAgent(const SaAgent&) = delete;
    SaAgent& operator=(const SaAgent&) = delete;

    // Installs the agent as the transport's GSI (class 0x03) handler.
    void install();

    // Serves `attr_id` with `handler` for `methods` (mad::sa::method
    // values: get, get_table, set, delete_, get_multi). `record_size` is the
    // record's length in bytes (AttributeOffset is it rounded up to 8-byte
    // words). A later call for the same attribute replaces the earlier one.
    // Whether a handler for `attr_id` is registered (ClassPortInfo's capability bits follow it).
    bool serves(std::uint16_t attr_id) const { return handlers_.count(attr_id) != 0; }
    void handle(std::uint16_t attr_id, std::size_t record_size, std::initializer_list<std::uint8_t> methods,
                SaHandler handler);

    // The generation queries are answered from (null: none yet, queries get
    // NO_RESOURCES).
    void publish(SnapshotPtr confirmed) { snapshot_ = std::move(confirmed); }
    const SnapshotPtr& snapshot() const { return snapshot_; }

    // Sends Report(attr_id) carrying `data` to a subscriber and resends it
    // until the subscriber answers ReportResp or the retries are spent
    // (InformInfo forwarding, IBA 13.4.8.3).
    void send_report(const mad::GsiAddress& to, std::uint16_t attr_id, std::span<const std::uint8_t> data);

    const SaCounters& counters() const { return counters_; }
    std::size_t backlog() const { return backlog_.size(); }
    // Whether the SM has a piece of work in progress (the sweep scheduler's
    // busy()); unset: only its SMPs make it busy.
    void set_work_probe(std::function<bool()> working) { working_ = std::move(working); }
    // The rule of the header: the SM's work or its SMPs, never counter queries.
    bool busy() const { return (working_ && working_()) || transport_.smps_pending() > 0; }
    std::size_t transfers_in_flight() const { return transfers_.size(); }
    std::size_t requests_in_flight() const { return requests_.size(); }
    std::size_t reports_in_flight() const { return reports_.size(); }

    // For tests and fuzzers: handles one received MAD as the transport would.
    void on_mad(const mad::RawReceive& r);

private:
    struct Registration {
        std::size_t record_size = 0;
        std::set<std::uint8_t> methods;
        SaHandler handler;
    };
    struct Transfer {
        mad::GsiAddress to;
        mad::sa::RmppSender sender;
        boost::asio::steady_timer timer;
        Transfer(boost::asio::io_context& io, mad::GsiAddress a, mad::sa::RmppSender s)
            : to(a), sender(std::move(s)), timer(io)
        {
        }
    };
    struct Incoming {
        mad::GsiAddress from;
        mad::sa::RmppReceiver receiver;
        boost::asio::steady_timer timer;
        Incoming(boost::asio::io_context& io, mad::GsiAddress a, mad::sa::RmppReceiver r)
            : from(a), receiver(std::move(r)), timer(io)
        {
        }
    };
    struct Report {
        mad::GsiAddress to;
        mad::sa::Mad mad;
        unsigned attempts = 0;
        std::unique_ptr<boost::asio::steady_timer> timer;
    };
    using TransferKey = std::pair<std::uint16_t, std::uint64_t>; // requester LID, TID

    // `data`: the request's data area (one MAD's, or a reassembled request's).
    void on_request(const mad::RawReceive& r, const mad::sa::SaHeader& h, std::span<const std::uint8_t> data);
    void on_request_segment(const mad::RawReceive& r, const mad::sa::SaHeader& h);
    void arm_request(const TransferKey& key);
    void on_rmpp_control(const mad::RawReceive& r, const mad::sa::SaHeader& h);
    void on_response(const mad::sa::SaHeader& h);
    void answer_error(const mad::RawReceive& r, const mad::sa::SaHeader& h, std::uint16_t status);
    void answer(const mad::GsiAddress& to, const mad::sa::SaHeader& request, std::uint16_t status,
                std::span<const std::uint8_t> data, std::uint16_t attr_offset);
    void start_transfer(const mad::GsiAddress& to, mad::sa::SaHeader response, std::vector<std::uint8_t> payload);
    void pump(const TransferKey& key);
    void arm(const TransferKey& key);
    void send(const mad::GsiAddress& to, const mad::sa::Mad& mad);
    void send_report_attempt(std::uint64_t tid);
    // Requests: answered now, or queued behind a sweep (see the header).
    bool take_token();
    void drain_backlog();
    void arm_backlog();

    boost::asio::io_context& io_;
    mad::Transport& transport_;
    SaSettings settings_;
    SnapshotPtr snapshot_;
    std::map<std::uint16_t, Registration> handlers_;
    std::map<TransferKey, std::unique_ptr<Transfer>> transfers_;
    std::map<TransferKey, std::unique_ptr<Incoming>> requests_;
    std::map<std::uint64_t, Report> reports_;
    std::uint64_t next_report_tid_ = 1;
    std::function<bool()> working_;
    std::deque<mad::RawReceive> backlog_;
    boost::asio::steady_timer backlog_timer_;
    bool backlog_armed_ = false;
    double tokens_ = 0;
    std::chrono::steady_clock::time_point tokens_at_{};
    SaCounters counters_;
    RefusalLog wrong_key_log_, denied_log_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

// The requester's address of a received MAD.
inline mad::GsiAddress requester_of(const mad::RawReceive& r)
{
    return mad::GsiAddress{r.source_lid, r.source_qpn ? r.source_qpn : 1, 0x80010000, r.source_sl};
}

} // namespace ibsm::daemon
