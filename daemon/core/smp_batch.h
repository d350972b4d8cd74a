// Sends many independent SMPs as one source of the transport's window
// (mad/transport.h, "Sources"), for the programmers' block and port Sets.
//
// Why: the LFT blocks are most of a bring-up's SMPs (1.38 million of 2.06
// million at 27 648 hosts). Sent one coroutine each (dr_set under
// run_jobs), every block cost a coroutine frame, a type-erased completion
// handler and a resumption through the executor, which is more CPU than
// the rest of its trip. A batch has none of those per SMP: the transport
// pulls the next request when the window has room and tells each
// completion by a plain call; the waiting coroutine is resumed once, when
// every item has finished (docs/scale.md, "What one SMP costs").
//
// Data structures: the item count, the next item to pull, how many are
// pulled and unfinished, and the caller's two callables: make(i, request)
// fills item i's request, answer(i, response) takes its completion (an
// answer, a bad status, a give-up after the transport's retries, or
// shutdown). One timer, cancelled when the last item finishes, wakes the
// coroutine.
//
// Algorithm: items are pulled in index order, so callers interleave (block
// 0 of every switch before block 1 of any) by how they number them.
// Retries, backoff and M_Key are the transport's, as for any request; a
// caller's rounds (Set again what is still unconfirmed) are batches of
// their own.
#pragma once

#include "mad/transport.h"

#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <functional>

namespace ibsm::daemon {

using BatchMake = std::function<void(std::size_t, mad::SmpRequest&)>;
using BatchAnswer = std::function<void(std::size_t, const mad::SmpResponse&)>;

// Sends make(i)'s request for every i in 0..count-1 and calls answer(i, ·)
// as each finishes; completes when all have (or the transport stopped:
// the unsent ones are never made nor answered). An exception thrown by
// make or answer (a bug, not a fabric problem) stops the pulling and is
// rethrown once the items pulled have finished.
boost::asio::awaitable<void> send_batch(mad::Transport& transport, std::size_t count, BatchMake make,
                                        BatchAnswer answer);

} // namespace ibsm::daemon
