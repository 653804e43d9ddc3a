// `rigrip report merge`: one report out of the --report files of several shards.
#pragma once

#include <string>
#include <vector>

namespace rigrip::cli {
// Returns the process exit code: 0 merged, 1 an input is unreadable, not a report, or
// names an input that another report also names (overlapping shards).
int cmd_report_merge(const std::vector<std::string>& reports, const std::string& output);
}  // namespace rigrip::cli
