// The pool: hardware_concurrency - 1 worker threads (the caller is the last
// one), started on first use and never stopped (they may outlive statics).
// A job is a range split into pieces; every participant takes pieces from an
// atomic counter until none is left, so a slow thread delays only its own
// piece. A forked child has no workers: its loops run serially.
#include "ops/cpu_parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include <unistd.h>

#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

int hardware_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(hw, 1u, 64u));
}

std::atomic<int> g_num_threads{0};  // 0: not set, use hardware_threads()
thread_local bool t_in_parallel = false;

struct Job {
  Job(int64_t n_, int64_t pieces_, parallel_detail::RangeFn fn_, void* ctx_)
      : n(n_), pieces(pieces_), fn(fn_), ctx(ctx_), remaining(pieces_) {}
  const int64_t n, pieces;
  const parallel_detail::RangeFn fn;
  void* const ctx;
  std::atomic<int64_t> next{0}, remaining;
  std::mutex m;
  std::condition_variable done;
  std::exception_ptr error;

  void run() {
    const bool outer = t_in_parallel;
    t_in_parallel = true;
    for (int64_t k; (k = next.fetch_add(1)) < pieces;) {
      const int64_t begin = n * k / pieces, end = n * (k + 1) / pieces;
      try {
        if (begin < end) fn(ctx, begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        if (!error) error = std::current_exception();
      }
      if (remaining.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lock(m);
        done.notify_all();
      }
    }
    t_in_parallel = outer;
  }
};

class Pool {
 public:
  explicit Pool(int workers) : pid_(getpid()), workers_(workers) {
    for (int i = 0; i < workers; ++i) std::thread([this] { work(); }).detach();
  }
  int workers() const { return workers_; }

  // False when this is a forked child or another loop holds the pool.
  bool try_run(const std::shared_ptr<Job>& job) {
    if (getpid() != pid_) return false;
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = job;
      ++generation_;
    }
    wake_.notify_all();
    job->run();
    std::unique_lock<std::mutex> lock(job->m);
    job->done.wait(lock, [&] { return job->remaining.load() == 0; });
    return true;
  }

 private:
  void work() {
    uint64_t seen = 0;
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(m_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        job = job_;
      }
      job->run();
    }
  }

  const pid_t pid_;
  const int workers_;
  std::mutex busy_, m_;
  std::condition_variable wake_;
  uint64_t generation_ = 0;
  std::shared_ptr<Job> job_;
};

Pool& pool() {
  static Pool* p = new Pool(hardware_threads() - 1);
  return *p;
}

}  // namespace

int get_num_threads() {
  const int n = g_num_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : hardware_threads();
}

void set_num_threads(int n) {
  EMBER_CHECK_VALUE(n >= 1, "set_num_threads: the number of threads must be positive, got ", n);
  g_num_threads.store(std::min(n, hardware_threads()), std::memory_order_relaxed);
}

namespace parallel_detail {

void parallel_for_impl(int64_t n, int64_t grain, RangeFn fn, void* ctx) {
  const int64_t threads = get_num_threads();
  const int64_t pieces = std::min<int64_t>(threads, n / std::max<int64_t>(grain, 1));
  if (pieces <= 1 || t_in_parallel || pool().workers() == 0) {
    fn(ctx, 0, n);
    return;
  }
  auto job = std::make_shared<Job>(n, pieces, fn, ctx);
  if (!pool().try_run(job)) {
    fn(ctx, 0, n);
    return;
  }
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace parallel_detail

}  // namespace ember::ops
