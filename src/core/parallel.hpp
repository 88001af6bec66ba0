// A small persistent pool of worker threads for the host's data-parallel work after a mode:
// reading mapped device memory (host_read.hpp) and the verification kernels (stats.hpp,
// compareWithTolerance). Started on first use and kept for the process; its threads end with
// the process. Fork-safe: a forked child (repro's supervised child) starts a pool of its own
// on first use and leaves its parent's alone, whose threads do not exist in it.
#pragma once

#include <cstddef>
#include <future>
#include <optional>
#include <system_error>
#include <type_traits>
#include <utility>

namespace repro {

// Most threads one parallelTasks call uses, the calling thread included.
inline constexpr unsigned kMaxParallelThreads = 64;

// Logical CPUs this process may run on (its sched_getaffinity mask, so a container's or
// taskset's limit counts), at least 1; std::thread::hardware_concurrency() where the mask
// cannot be read.
unsigned availableCpus();

// Parses a thread-count override such as REPRO_READ_THREADS: an integer 1..64 in decimal,
// or nullopt (null, empty, signs, other characters, out of range).
std::optional<unsigned> parseThreadCount(const char* text);

// The type-erased form of parallelTasks: fn(context, task).
using TaskFunction = void (*)(void* context, size_t task);
void runParallelTasks(size_t tasks, unsigned threads, TaskFunction fn, void* context);

// Calls body(task) once for every task in [0, tasks) on up to `threads` threads (the
// calling thread is one of them; 0 and 1 mean the caller alone, more than
// kMaxParallelThreads is clamped) and returns when every call has returned. Tasks are
// taken in increasing order from a shared counter, so which thread runs a task is not
// fixed: a result that must not depend on the thread count is stored per task and
// combined by the caller in task order.
//
// The pool's threads are started on first use and kept for later calls; when the system
// refuses a thread (std::system_error), the call runs on the threads it has, the caller
// alone at worst. Errors: the first exception a body throws is rethrown on the caller,
// after every task already started has returned (tasks not yet started are skipped), so
// no pool thread still touches the caller's data once the exception leaves. One call at a
// time: a second caller waits for the first; a call made from inside a body runs serially
// on that thread. Pool threads block asynchronous signals (SIGINT, SIGTERM, ...), so the
// process's handlers run on the session's own threads.
template <typename Body>
void parallelTasks(size_t tasks, unsigned threads, Body&& body) {
    using B = std::remove_reference_t<Body>;
    runParallelTasks(
        tasks, threads, [](void* context, size_t task) { (*static_cast<B*>(context))(task); },
        const_cast<std::remove_const_t<B>*>(&body));
}

// Blocks asynchronous signals (SIGINT, SIGTERM, ...) on the calling thread, as the pool's
// threads do; faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS) stay open.
void blockAsynchronousSignals();

// Runs make() on a thread of its own while the caller goes on, for host work that does not
// depend on what the caller does next (the chain's input while the driver loads, the
// readback's host pages while the GPU runs). The thread blocks asynchronous signals, so an
// interrupt still reaches the caller's blocking call. get() on the result returns what
// make returned or rethrows what it threw; the future's destructor waits for make to end
// (std::async), so nothing outlives the data make refers to. Where the system refuses the
// thread (std::system_error), make runs on the caller at get() instead.
template <typename Make>
auto startInBackground(Make make) -> std::future<std::invoke_result_t<Make&>> {
    auto body = [make = std::move(make)]() mutable {
        blockAsynchronousSignals();
        return make();
    };
    try {
        return std::async(std::launch::async, std::move(body));
    } catch (const std::system_error&) {
        return std::async(std::launch::deferred, std::move(body));
    }
}

}  // namespace repro
