// Replacement global operator new/delete for the hostile test binary (see alloc_tracker.hpp).
// Sizes come from malloc_usable_size, which glibc and the sanitizer allocators both provide,
// so delete needs no header and the sized/aligned variants all share one path.
#include "alloc_tracker.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace hostile::alloc {
namespace {
std::atomic<std::int64_t> g_live{0};
std::atomic<std::int64_t> g_peak{0};
std::atomic<std::int64_t> g_baseline{0};
std::atomic<std::int64_t> g_limit{INT64_MAX};  // absolute live-byte ceiling while armed
std::atomic<bool> g_armed{false};
std::atomic<std::int64_t> g_refused_bytes{0};
std::atomic<std::uint64_t> g_refused_count{0};
std::atomic<std::uint64_t> g_allocations{0};

void note_peak(std::int64_t now) {
  std::int64_t p = g_peak.load(std::memory_order_relaxed);
  while (now > p && !g_peak.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
  }
}

// Returns false (and records it) when the request would break the armed bound.
bool admit(std::size_t n) {
  if (!g_armed.load(std::memory_order_relaxed)) return true;
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  auto want = static_cast<std::int64_t>(n > static_cast<std::size_t>(INT64_MAX / 2) ? INT64_MAX / 2 : n);
  if (g_live.load(std::memory_order_relaxed) + want <= g_limit.load(std::memory_order_relaxed)) return true;
  g_refused_count.fetch_add(1, std::memory_order_relaxed);
  std::int64_t r = g_refused_bytes.load(std::memory_order_relaxed);
  while (want > r && !g_refused_bytes.compare_exchange_weak(r, want, std::memory_order_relaxed)) {
  }
  return false;
}

void* track(void* p) {
  if (p) note_peak(g_live.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p)),
                                    std::memory_order_relaxed) +
                   static_cast<std::int64_t>(malloc_usable_size(p)));
  return p;
}

void* allocate(std::size_t n) {
  if (!admit(n)) return nullptr;
  return track(std::malloc(n ? n : 1));
}

void* allocate_aligned(std::size_t n, std::size_t align) {
  if (!admit(n)) return nullptr;
  if (align < sizeof(void*)) align = sizeof(void*);
  std::size_t rounded = (n + align - 1) / align * align;
  return track(std::aligned_alloc(align, rounded ? rounded : align));
}

void release(void* p) noexcept {
  if (!p) return;
  g_live.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}
}  // namespace

void begin(std::int64_t limit_bytes) {
  std::int64_t now = g_live.load();
  g_baseline = now;
  g_peak = now;
  g_refused_bytes = 0;
  g_refused_count = 0;
  g_allocations = 0;
  g_limit = limit_bytes > INT64_MAX - now ? INT64_MAX : now + limit_bytes;
  g_armed = true;
}

stats end() {
  g_armed = false;
  stats s;
  s.peak_bytes = g_peak.load() - g_baseline.load();
  s.refused_bytes = g_refused_bytes.load();
  s.refused_count = g_refused_count.load();
  s.allocations = g_allocations.load();
  g_limit = INT64_MAX;
  return s;
}

std::int64_t live_bytes() { return g_live.load(); }

}  // namespace hostile::alloc

// ---- the replacements -------------------------------------------------------------
void* operator new(std::size_t n) {
  if (void* p = hostile::alloc::allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = hostile::alloc::allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return hostile::alloc::allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return hostile::alloc::allocate(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  if (void* p = hostile::alloc::allocate_aligned(n, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) {
  if (void* p = hostile::alloc::allocate_aligned(n, static_cast<std::size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return hostile::alloc::allocate_aligned(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return hostile::alloc::allocate_aligned(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { hostile::alloc::release(p); }
void operator delete[](void* p) noexcept { hostile::alloc::release(p); }
void operator delete(void* p, std::size_t) noexcept { hostile::alloc::release(p); }
void operator delete[](void* p, std::size_t) noexcept { hostile::alloc::release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { hostile::alloc::release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { hostile::alloc::release(p); }
void operator delete(void* p, std::align_val_t) noexcept { hostile::alloc::release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { hostile::alloc::release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { hostile::alloc::release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { hostile::alloc::release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { hostile::alloc::release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { hostile::alloc::release(p); }
