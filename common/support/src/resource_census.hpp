// The census of streams, events and pinned-in-place host memory left behind
// (resource_census.cpp). Internal: linked into the lab programs only.
#pragma once

#include <string>

namespace streamlab::detail {

/// What is alive now that the program created through the wrapped calls: one
/// JSON line per stream, event or registered host range, with the call that
/// made it and the return addresses of that call as [module, address] pairs.
[[nodiscard]] std::string resource_census_report();

}  // namespace streamlab::detail
