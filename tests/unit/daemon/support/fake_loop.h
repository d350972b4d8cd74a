// An io_context, a scripted fake port and a transport over it, for running
// one programmer coroutine to completion in a unit test.
#pragma once

#include "../../mad/transport/fake_port.h"

#include "mad/transport.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <exception>
#include <optional>

namespace ibsm::test {

struct Loop {
    boost::asio::io_context io;
    FakePort port{true};
    mad::Transport transport;

    explicit Loop(unsigned retries = 0)
        : transport(io, port, mad::TransportOptions{8, std::chrono::milliseconds(20), retries})
    {
        transport.start();
    }

    // Runs `make()` (a function returning awaitable<T>) until it finishes;
    // the transport is ready for the next run afterwards.
    template <class Make>
    auto run(Make make)
    {
        using T = typename decltype(make())::value_type;
        std::optional<T> out;
        boost::asio::co_spawn(
            io,
            [&]() -> boost::asio::awaitable<void> {
                out = co_await make();
                transport.stop();
            },
            [](std::exception_ptr e) {
                if (e) std::rethrow_exception(e);
            });
        io.run();
        io.restart();
        transport.start();
        return std::move(*out);
    }
};

} // namespace ibsm::test
