// A scripted MadPort for transport tests: records what is sent, lets the test
// decide per request whether and how it is answered, and injects arbitrary
// received MADs. In reactor mode a pipe signals readability so the
// io_context's epoll path is exercised; in polled mode the transport's
// simulator path (wait_readable) is.
#pragma once

#include "mad/umad_port.h"

#include <deque>
#include <fcntl.h>
#include <functional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ibsm::test {

class FakePort final : public mad::MadPort {
public:
    // Called for every send; return the MADs to queue as "received".
    using Responder = std::function<std::vector<mad::RawReceive>(const mad::Smp&)>;

    explicit FakePort(bool reactor) : reactor_(reactor)
    {
        if (reactor_) {
            if (::pipe2(pipe_, O_NONBLOCK | O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
        }
    }
    ~FakePort() override
    {
        if (reactor_) {
            ::close(pipe_[0]);
            ::close(pipe_[1]);
        }
    }

    Responder responder;
    std::vector<mad::Smp> sent;
    std::size_t max_outstanding = 0;
    std::size_t answered = 0; // responses taken by the transport
    bool fail_sends = false;
    std::string ops; // 'S' per send, 'R' per MAD taken by the transport, in order

    void inject(mad::RawReceive r)
    {
        rx_.push_back(std::move(r));
        if (reactor_) {
            char c = 1;
            [[maybe_unused]] auto n = ::write(pipe_[1], &c, 1);
        }
    }

    bool send(const mad::Smp& smp, Lid, std::uint32_t) override
    {
        if (fail_sends) return false;
        sent.push_back(smp);
        ops += 'S';
        max_outstanding = std::max(max_outstanding, sent.size() - answered);
        if (responder)
            for (auto& r : responder(smp)) inject(std::move(r));
        return true;
    }

    std::optional<mad::RawReceive> try_receive() override
    {
        if (rx_.empty()) return std::nullopt;
        if (reactor_) {
            char c;
            [[maybe_unused]] auto n = ::read(pipe_[0], &c, 1);
        }
        auto r = std::move(rx_.front());
        rx_.pop_front();
        ops += 'R';
        if (r.smp.is_response()) ++answered;
        return r;
    }

    int fd() const override { return reactor_ ? pipe_[0] : -1; }
    bool pollable_by_reactor() const override { return reactor_; }
    bool wait_readable(int timeout_ms) override
    {
        if (!rx_.empty()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
        return !rx_.empty();
    }
    bool send_response(const mad::Smp& smp, const mad::RawReceive&) override
    {
        responses.push_back(smp);
        return true;
    }
    std::vector<mad::Smp> responses;

private:
    bool reactor_;
    int pipe_[2] = {-1, -1};
    std::deque<mad::RawReceive> rx_;
};

// The GetResp a well-behaved SMA would send for `req`, carrying `marker` in
// the first data byte so tests can tell responses apart.
inline mad::RawReceive answer(const mad::Smp& req, std::uint8_t marker, std::uint16_t status = 0)
{
    std::array<std::uint8_t, 64> data{};
    data[0] = marker;
    mad::RawReceive r;
    r.smp = mad::make_get_resp(req, data, status);
    r.length = mad::mad_size;
    return r;
}

} // namespace ibsm::test
