// What the measurement programs (pageable_overlap, host_allocation_costs) do with
// their result: print it, and write it to --json PATH for tools/quoted_numbers.py.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>

/// Prints `json` and, when `path` is not empty, writes it there. Returns the exit status.
inline int report_result(const std::string& json, const std::string& path) {
    std::printf("%s", json.c_str());
    if (path.empty()) {
        return 0;
    }
    std::ofstream file(path);
    file << json;
    if (!file) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        return 1;
    }
    std::printf("figures written to %s\n", path.c_str());
    return 0;
}
