// An io_context, a FakeFabric built from a topology::Fabric and a Transport
// over it: the harness for running discovery, the programmers, a bring-up
// or the scheduler against a simulated fabric in a unit test.
#pragma once

#include "fake_fabric.h"

#include "mad/transport.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <exception>
#include <optional>

namespace ibsm::test {

// Short timeouts: every SMP the fake drops costs one per attempt.
inline mad::TransportOptions fast_transport(unsigned retries = 0)
{
    return mad::TransportOptions{16, std::chrono::milliseconds(20), retries, std::chrono::milliseconds(1)};
}

struct FabricLoop {
    boost::asio::io_context io;
    FakeFabric fabric;
    mad::Transport transport;

    explicit FabricLoop(const topology::Fabric& f, FakeFabricOptions options = {},
                        mad::TransportOptions transport_options = fast_transport())
        : fabric(f, options), transport(io, fabric, transport_options)
    {
        transport.start();
    }

    // Runs `make()` (a function returning awaitable<T>) to completion and
    // returns its value; the transport is ready for the next run afterwards.
    template <class Make>
    auto run(Make make)
    {
        using T = typename decltype(make())::value_type;
        std::optional<T> out;
        std::exception_ptr failure;
        boost::asio::co_spawn(
            io,
            [&]() -> boost::asio::awaitable<void> {
                out = co_await make();
                transport.stop();
            },
            [&](std::exception_ptr e) {
                if (e) {
                    failure = e;
                    transport.stop();
                }
            });
        io.run();
        io.restart();
        transport.start();
        if (failure) std::rethrow_exception(failure);
        return std::move(*out);
    }

    // Lets the transport take what the fabric queued (traps, requests for
    // the SM) and hand it to the unsolicited handler.
    void poll()
    {
        io.poll();
        io.restart();
    }
};

} // namespace ibsm::test
