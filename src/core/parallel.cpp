// The worker pool behind parallelTasks: threads that sleep on a condition variable between
// calls; a forked child gets a pool of its own (pool(), below).
#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stop_token>
#include <system_error>
#include <thread>
#include <vector>

#include "core/text.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <csignal>
#endif

namespace repro {
namespace {

// True on a pool thread, and on a caller while it runs tasks: a nested call runs serially.
thread_local bool insideParallelTasks = false;

class WorkerPool {
  public:
    WorkerPool() = default;
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;
    // Asks every thread to stop before the jthreads' destructors join them one by one, so
    // they wake and end together rather than in turn (at exit).
    ~WorkerPool() {
        for (std::jthread& w : workers_) w.request_stop();
    }
    void run(size_t tasks, unsigned threads, TaskFunction fn, void* context);

  private:
    void grow(unsigned helpers);
    void workerLoop(const std::stop_token& stop, unsigned index);
    void drain();

    std::mutex callMutex_;  // one call at a time
    std::mutex mutex_;      // guards the job below and the counts
    std::condition_variable_any wake_;
    std::condition_variable done_;
    uint64_t generation_ = 0;    // bumped for every job
    unsigned participants_ = 0;  // workers 0 .. participants_-1 take part in the job
    unsigned running_ = 0;       // of those, the ones not yet done
    TaskFunction fn_ = nullptr;
    void* context_ = nullptr;
    size_t tasks_ = 0;
    std::atomic<size_t> next_{0};
    std::atomic<bool> failed_{false};
    std::exception_ptr error_;
    // Last: destroyed first, so the threads are stopped and joined while the rest lives.
    std::vector<std::jthread> workers_;
};

void WorkerPool::grow(unsigned helpers) {
    while (workers_.size() < helpers) {
        try {
            const auto index = static_cast<unsigned>(workers_.size());
            workers_.emplace_back([this, index](std::stop_token stop) { workerLoop(stop, index); });
        } catch (const std::system_error&) {
            return;  // run with the threads there are
        }
    }
}

void WorkerPool::workerLoop(const std::stop_token& stop, unsigned index) {
    blockAsynchronousSignals();
    insideParallelTasks = true;
    uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            if (!wake_.wait(lock, stop, [&] { return generation_ != seen; })) return;
            seen = generation_;
            if (index >= participants_) continue;
        }
        drain();
        std::lock_guard lock(mutex_);
        if (--running_ == 0) done_.notify_one();
    }
}

void WorkerPool::drain() {
    for (size_t t = next_.fetch_add(1); t < tasks_; t = next_.fetch_add(1)) {
        if (failed_.load(std::memory_order_relaxed)) continue;  // skip what is left
        try {
            fn_(context_, t);
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!error_) error_ = std::current_exception();
            failed_.store(true, std::memory_order_relaxed);
        }
    }
}

void WorkerPool::run(size_t tasks, unsigned threads, TaskFunction fn, void* context) {
    std::lock_guard call(callMutex_);
    grow(threads - 1);
    const auto helpers = static_cast<unsigned>(std::min<size_t>({size_t{threads} - 1, workers_.size(), tasks - 1}));
    {
        std::lock_guard lock(mutex_);
        fn_ = fn;
        context_ = context;
        tasks_ = tasks;
        next_.store(0);
        failed_.store(false);
        error_ = nullptr;
        participants_ = helpers;
        running_ = helpers;
        ++generation_;
    }
    if (helpers > 0) wake_.notify_all();
    insideParallelTasks = true;
    drain();
    insideParallelTasks = false;
    std::exception_ptr error;
    {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return running_ == 0; });
        error = std::exchange(error_, nullptr);
    }
    if (error) std::rethrow_exception(error);
}

// This process's pool, made on first use and never destroyed (its threads end with the
// process). A forked child must not use or destroy its parent's: the threads it would wake or
// join do not exist in the child (a child that joined them at exit crashed: e2e
// ScenarioBlade356.AFullSizeChainInputDoesNotCrashTheChildAtExit). So fork gives the child a
// fresh pool on its first use (pthread_atfork), and the parent's stays reachable, unused.
std::atomic<WorkerPool*> livePool{nullptr};
std::vector<WorkerPool*>* inheritedPools = nullptr;  // a child's parents' pools, kept

void forgetThePoolInAForkedChild() {
    WorkerPool* inherited = livePool.exchange(nullptr);
    if (inherited == nullptr) return;
    if (inheritedPools == nullptr) inheritedPools = new std::vector<WorkerPool*>;
    inheritedPools->push_back(inherited);
}

WorkerPool& pool() {
#if defined(__linux__)
    static const bool forkHandled = pthread_atfork(nullptr, nullptr, forgetThePoolInAForkedChild) == 0;
    (void)forkHandled;
#endif
    WorkerPool* p = livePool.load();
    if (p != nullptr) return *p;
    auto* made = new WorkerPool;  // starts no thread: run() grows it
    if (livePool.compare_exchange_strong(p, made)) return *made;
    delete made;  // another thread made it first
    return *p;
}

}  // namespace

// The kernel delivers an asynchronous signal to a thread that does not block it (parallel.hpp).
void blockAsynchronousSignals() {
#if defined(__linux__)
    sigset_t set;
    sigfillset(&set);
    for (const int synchronous : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS}) {
        sigdelset(&set, synchronous);
    }
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
#endif
}

unsigned availableCpus() {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        const int count = CPU_COUNT(&set);
        if (count > 0) return static_cast<unsigned>(count);
    }
#endif
    return std::max(std::thread::hardware_concurrency(), 1u);
}

std::optional<unsigned> parseThreadCount(const char* text) {
    const auto value = text == nullptr ? std::nullopt : parseWhole<unsigned>(text);
    if (!value || *value < 1 || *value > kMaxParallelThreads) return std::nullopt;
    return value;
}

void runParallelTasks(size_t tasks, unsigned threads, TaskFunction fn, void* context) {
    if (tasks == 0) return;
    threads = std::min(threads, kMaxParallelThreads);
    if (threads <= 1 || tasks == 1 || insideParallelTasks) {
        for (size_t t = 0; t < tasks; ++t) fn(context, t);
        return;
    }
    pool().run(tasks, threads, fn, context);
}

}  // namespace repro
