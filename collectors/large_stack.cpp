#include "collectors/large_stack.h"

#include <pthread.h>

#include <atomic>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace diskperf {
namespace {

// Starts fn(arg) on a thread with a kLargeStackBytes stack; 0 or pthread_create's error.
int start_large(pthread_t* t, void* (*fn)(void*), void* arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kLargeStackBytes);
  int rc = pthread_create(t, &attr, fn, arg);
  pthread_attr_destroy(&attr);
  return rc;
}

}  // namespace

void run_with_large_stack(const std::function<void()>& fn) {
  struct Job {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } job{&fn, nullptr};
  pthread_t t;
  int rc = start_large(
      &t,
      [](void* p) -> void* {
        auto* j = static_cast<Job*>(p);
        try {
          (*j->fn)();
        } catch (...) {
          j->error = std::current_exception();
        }
        return nullptr;
      },
      &job);
  if (rc != 0) throw std::runtime_error(std::string("cannot start a thread: ") + std::strerror(rc));
  pthread_join(t, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

void run_spread(std::size_t n, std::size_t threads, const std::function<void(std::size_t)>& fn) {
  struct Shared {
    std::size_t n;
    const std::function<void(std::size_t)>* fn;
    std::atomic<std::size_t> next{0};
    void work() {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) (*fn)(i);
    }
  } shared;
  shared.n = n;
  shared.fn = &fn;
  std::vector<pthread_t> started;
  for (std::size_t k = 1; k < threads && k < n; ++k) {
    pthread_t t;
    if (start_large(
            &t,
            [](void* p) -> void* {
              static_cast<Shared*>(p)->work();
              return nullptr;
            },
            &shared) == 0)
      started.push_back(t);
  }
  shared.work();
  for (pthread_t t : started) pthread_join(t, nullptr);
}

}  // namespace diskperf
