// Peak-live-bytes accounting for the hostile-input tests. This test binary replaces the
// global operator new/delete (alloc_tracker.cpp) so that every C++ allocation a reader
// makes is counted. While a run is "armed", an allocation that would push the live bytes
// above the run's bound is refused with std::bad_alloc and recorded as a violation: a
// reader that sizes a buffer from an unchecked count field is caught here even when it
// would later have recovered from the bad_alloc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hostile::alloc {

struct stats {
  std::int64_t peak_bytes = 0;         // peak live bytes above the baseline during the run
  std::int64_t refused_bytes = 0;      // largest single request refused (0 = none)
  std::uint64_t refused_count = 0;     // requests refused because of the bound
  std::uint64_t allocations = 0;       // operator new calls during the run
};

// Starts accounting: the bound is `limit_bytes` above the live bytes at this moment.
void begin(std::int64_t limit_bytes);
// Stops accounting and returns what happened since begin().
stats end();
// Live bytes right now (all threads).
std::int64_t live_bytes();

}  // namespace hostile::alloc
