#include "daemon/core/smp_batch.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>

namespace ibsm::daemon {
namespace {

class Batch final : public mad::RequestSource {
public:
    Batch(mad::Transport& transport, std::size_t count, BatchMake& make, BatchAnswer& answer,
          const boost::asio::any_io_executor& executor)
        : transport_(transport), count_(count), make_(make), answer_(answer),
          wake_(executor, boost::asio::steady_timer::time_point::max())
    {
    }
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;
    // The transport keeps a source it last pulled from until next() says
    // no more, and one destroyed early (its coroutine destroyed with the
    // io_context) may have requests out: either way it must forget this
    // one. After stop() (closed()) it holds nothing of it, and may be gone.
    ~Batch()
    {
        if (registered_ || out_ > 0) transport_.remove_source(*this);
    }

    void start()
    {
        registered_ = true;
        transport_.add_source(*this);
    }

    bool next(mad::SmpRequest& request, std::uint64_t& tag) override
    {
        if (stopped_ || next_ == count_) {
            registered_ = false; // the transport drops a source that says no more
            return false;
        }
        try {
            make_(next_, request);
        } catch (...) {
            fail(std::current_exception());
            registered_ = false;
            return false;
        }
        tag = next_++;
        ++out_;
        return true;
    }

    void finished(std::uint64_t tag, const mad::SmpResponse& response) override
    {
        --out_;
        if (!failure_) {
            try {
                answer_(static_cast<std::size_t>(tag), response);
            } catch (...) {
                fail(std::current_exception());
            }
        }
        wake_if_done();
    }

    void closed() override
    {
        registered_ = false;
        stopped_ = true;
        wake_if_done();
    }

    bool done() const { return out_ == 0 && (stopped_ || next_ == count_); }
    boost::asio::steady_timer& wake() { return wake_; }
    std::exception_ptr failure() const { return failure_; }

private:
    void fail(std::exception_ptr e)
    {
        if (!failure_) failure_ = e;
        stopped_ = true; // pull nothing more; what is out still finishes
    }
    void wake_if_done()
    {
        if (done()) wake_.cancel();
    }

    mad::Transport& transport_;
    std::size_t count_;
    BatchMake& make_;
    BatchAnswer& answer_;
    boost::asio::steady_timer wake_;
    std::size_t next_ = 0;
    std::size_t out_ = 0;
    bool stopped_ = false;
    bool registered_ = false; // in the transport's sources (see the destructor)
    std::exception_ptr failure_;
};

} // namespace

boost::asio::awaitable<void> send_batch(mad::Transport& transport, std::size_t count, BatchMake make,
                                        BatchAnswer answer)
{
    if (count == 0) co_return;
    Batch batch(transport, count, make, answer, co_await boost::asio::this_coro::executor);
    batch.start();
    // Everything may have finished inside add_source (a port refusing every
    // send, a stopped transport): then no cancel is coming.
    if (!batch.done()) {
        boost::system::error_code ec;
        co_await batch.wake().async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }
    if (batch.failure()) std::rethrow_exception(batch.failure());
}

} // namespace ibsm::daemon
