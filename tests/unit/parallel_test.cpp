// Unit tests for src/core/parallel.{hpp,cpp}: every task runs once, on several threads when
// asked, exceptions reach the caller only after every started task has returned, nested and
// concurrent calls complete, pool threads block asynchronous signals, and thread-count
// overrides parse strictly. startInBackground runs its work on another thread with the same
// signal mask and hands back its value or its exception.
#include "core/parallel.hpp"

#include <gtest/gtest.h>

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace repro {
namespace {

TEST(ParallelTasks, EveryTaskRunsExactlyOnce) {
    for (const size_t tasks : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{1000}}) {
        for (const unsigned threads : {0u, 1u, 2u, 4u, 64u, 1000u}) {
            std::vector<std::atomic<int>> runs(tasks);
            parallelTasks(tasks, threads, [&](size_t t) { runs[t].fetch_add(1); });
            for (size_t t = 0; t < tasks; ++t) {
                ASSERT_EQ(runs[t].load(), 1) << "task " << t << " of " << tasks << ", threads " << threads;
            }
        }
    }
}

// Two tasks that each wait for the other to start can only finish on two threads.
TEST(ParallelTasks, RunsTasksConcurrentlyWhenAskedForThreads) {
    std::atomic<int> started{0};
    std::atomic<bool> bothSeen{true};
    parallelTasks(2, 2, [&](size_t) {
        started.fetch_add(1);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (started.load() < 2) {
            if (std::chrono::steady_clock::now() > deadline) {
                bothSeen = false;
                return;
            }
            std::this_thread::yield();
        }
    });
    EXPECT_TRUE(bothSeen.load());
}

// SIGINT and SIGTERM must reach the session's threads, not a pool thread; faults stay open.
TEST(ParallelTasks, PoolThreadsBlockAsynchronousSignalsOnly) {
    const auto caller = std::this_thread::get_id();
    std::atomic<int> started{0}, checked{0}, blocked{0}, faultsOpen{0};
    parallelTasks(2, 2, [&](size_t) {
        started.fetch_add(1);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        if (std::this_thread::get_id() == caller) return;
        sigset_t now;
        pthread_sigmask(SIG_BLOCK, nullptr, &now);
        checked.fetch_add(1);
        if (sigismember(&now, SIGINT) == 1 && sigismember(&now, SIGTERM) == 1) blocked.fetch_add(1);
        if (sigismember(&now, SIGSEGV) == 0 && sigismember(&now, SIGBUS) == 0) faultsOpen.fetch_add(1);
    });
    ASSERT_EQ(checked.load(), 1);  // one task ran on a pool thread
    EXPECT_EQ(blocked.load(), 1);
    EXPECT_EQ(faultsOpen.load(), 1);
}

TEST(ParallelTasks, OneThreadRunsOnTheCaller) {
    const auto caller = std::this_thread::get_id();
    std::set<std::thread::id> seen;
    parallelTasks(50, 1, [&](size_t) { seen.insert(std::this_thread::get_id()); });
    EXPECT_EQ(seen, std::set<std::thread::id>{caller});
}

TEST(ParallelTasks, ExceptionReachesTheCallerAfterStartedTasksReturn) {
    std::atomic<int> running{0};
    std::atomic<int> finished{0};
    bool caught = false;
    try {
        parallelTasks(64, 4, [&](size_t t) {
            running.fetch_add(1);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            if (t == 3) {
                running.fetch_sub(1);
                throw std::runtime_error("task 3");
            }
            running.fetch_sub(1);
            finished.fetch_add(1);
        });
    } catch (const std::runtime_error& e) {
        caught = true;
        EXPECT_STREQ(e.what(), "task 3");
        EXPECT_EQ(running.load(), 0);  // no task still running once the exception is here
    }
    EXPECT_TRUE(caught);
    EXPECT_LT(finished.load(), 63);  // the tasks not yet started were skipped
    // The pool still works afterwards.
    std::atomic<int> count{0};
    parallelTasks(100, 4, [&](size_t) { count.fetch_add(1); });
    EXPECT_EQ(count.load(), 100);
}

TEST(ParallelTasks, NestedCallRunsSerially) {
    std::atomic<int> inner{0};
    parallelTasks(8, 4, [&](size_t) { parallelTasks(10, 4, [&](size_t) { inner.fetch_add(1); }); });
    EXPECT_EQ(inner.load(), 80);
}

TEST(ParallelTasks, ConcurrentCallersBothComplete) {
    std::atomic<int> a{0}, b{0};
    std::thread other([&] {
        for (int r = 0; r < 50; ++r) parallelTasks(20, 4, [&](size_t) { a.fetch_add(1); });
    });
    for (int r = 0; r < 50; ++r) parallelTasks(20, 4, [&](size_t) { b.fetch_add(1); });
    other.join();
    EXPECT_EQ(a.load(), 1000);
    EXPECT_EQ(b.load(), 1000);
}

TEST(StartInBackground, RunsOnAnotherThreadThatBlocksAsynchronousSignals) {
    const auto caller = std::this_thread::get_id();
    struct Seen {
        bool otherThread, intBlocked, termBlocked, segvOpen;
    };
    std::future<Seen> f = startInBackground([caller] {
        sigset_t now;
        pthread_sigmask(SIG_BLOCK, nullptr, &now);
        return Seen{.otherThread = std::this_thread::get_id() != caller,
                    .intBlocked = sigismember(&now, SIGINT) == 1,
                    .termBlocked = sigismember(&now, SIGTERM) == 1,
                    .segvOpen = sigismember(&now, SIGSEGV) == 0};
    });
    const Seen seen = f.get();
    EXPECT_TRUE(seen.otherThread);
    EXPECT_TRUE(seen.intBlocked);
    EXPECT_TRUE(seen.termBlocked);
    EXPECT_TRUE(seen.segvOpen);
    // The caller's own mask is untouched.
    sigset_t mine;
    pthread_sigmask(SIG_BLOCK, nullptr, &mine);
    EXPECT_EQ(sigismember(&mine, SIGINT), 0);
}

TEST(StartInBackground, GetReturnsTheValueOrRethrows) {
    EXPECT_EQ(startInBackground([] { return std::vector<int>{1, 2, 3}; }).get(), (std::vector<int>{1, 2, 3}));
    std::future<int> failing = startInBackground([]() -> int { throw std::runtime_error("no memory here"); });
    EXPECT_THROW(failing.get(), std::runtime_error);
}

TEST(StartInBackground, RunsBeforeTheCallerAsksForIt) {
    // The caller waits for the work to start before it calls get(): work deferred to get()
    // (std::launch::deferred) would never start here, and the wait would run out.
    std::atomic<bool> started{false};
    std::future<int> f = startInBackground([&] {
        started.store(true);
        return 7;
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!started.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    EXPECT_TRUE(started.load()) << "the work had not started 20 s after startInBackground returned";
    EXPECT_EQ(f.get(), 7);
}

TEST(ParseThreadCount, AcceptsOnlyPlainIntegersInRange) {
    EXPECT_EQ(parseThreadCount("1"), 1u);
    EXPECT_EQ(parseThreadCount("16"), 16u);
    EXPECT_EQ(parseThreadCount("64"), 64u);
    for (const char* bad : {"", "0", "65", "-1", "+4", " 4", "4 ", "4x", "x", "99999999999999999999"}) {
        EXPECT_EQ(parseThreadCount(bad), std::nullopt) << '"' << bad << '"';
    }
    EXPECT_EQ(parseThreadCount(nullptr), std::nullopt);
}

TEST(AvailableCpus, AtLeastOne) { EXPECT_GE(availableCpus(), 1u); }

}  // namespace
}  // namespace repro
