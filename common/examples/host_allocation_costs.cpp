// host_allocation_costs: what getting host memory costs, like for like.
//
// For each way of getting `SIZE` bytes (default 256 MiB) the host clock times
//   alloc:         getting the memory, nothing written
//                  (malloc; cudaMallocHost; cudaHostAlloc; malloc + cudaHostRegister)
//   alloc_touch:   getting it and writing every byte once (memset), which is what
//                  a program does before its first copy
//   release:       giving it back (free; cudaFreeHost; cudaHostUnregister + free)
// The median of 5 tries each (after one warm-up that also creates the CUDA
// context). Pageable memory pays for its pages at the first touch; pinned
// memory pays up front, when it is pinned.
//
// Usage: host_allocation_costs [--json PATH] [--mib SIZE]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "measurement_result.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/check.hpp"
#include "streamlab/device.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using streamlab::median;

/// One way of getting host memory: how to get it and how to give it back.
struct Way {
    const char* key;   ///< Its name in the JSON result.
    const char* name;  ///< What it does.
    std::function<void*(std::size_t)> get;
    std::function<void(void*, std::size_t)> release;
};

const std::vector<Way>& ways() {
    static const std::vector<Way> all = {
        {"malloc", "pageable (malloc)", [](std::size_t bytes) { return std::malloc(bytes); },
         [](void* p, std::size_t) { std::free(p); }},
        {"cudaMallocHost", "cudaMallocHost",
         [](std::size_t bytes) {
             void* p = nullptr;
             SL_CHECK(cudaMallocHost(&p, bytes));
             return p;
         },
         [](void* p, std::size_t) { SL_CHECK(cudaFreeHost(p)); }},
        {"cudaHostAlloc", "cudaHostAlloc",
         [](std::size_t bytes) {
             void* p = nullptr;
             SL_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
             return p;
         },
         [](void* p, std::size_t) { SL_CHECK(cudaFreeHost(p)); }},
        {"cudaHostRegister", "malloc + cudaHostRegister",
         [](std::size_t bytes) {
             void* p = std::malloc(bytes);
             SL_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
             return p;
         },
         [](void* p, std::size_t) {
             SL_CHECK(cudaHostUnregister(p));
             std::free(p);
         }},
    };
    return all;
}

double ms_since(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Cost {
    double alloc_ms = 0, alloc_touch_ms = 0, release_ms = 0;
};

Cost measure(const Way& way, std::size_t bytes, int tries) {
    std::vector<double> alloc, alloc_touch, release;
    for (int t = 0; t <= tries; ++t) {  // try 0 is the warm-up
        auto started = Clock::now();
        void* p = way.get(bytes);
        if (p == nullptr) {
            throw std::runtime_error(std::string(way.name) + " returned no memory");
        }
        const double got = ms_since(started);
        started = Clock::now();
        way.release(p, bytes);
        const double released = ms_since(started);
        started = Clock::now();
        p = way.get(bytes);
        std::memset(p, 1, bytes);
        const double got_and_touched = ms_since(started);
        way.release(p, bytes);
        if (t > 0) {
            alloc.push_back(got);
            release.push_back(released);
            alloc_touch.push_back(got_and_touched);
        }
    }
    return {median(alloc), median(alloc_touch), median(release)};
}

std::string utc_date() {
    char text[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return text;
}

int run(const std::string& json_path, std::size_t mib) {
    const std::size_t bytes = mib << 20;
    SL_CHECK(cudaFree(nullptr));  // the CUDA context, before anything is timed
    const streamlab::DeviceFacts facts = streamlab::query_device_facts(0);
    std::string json = "{\n  \"program\": \"host_allocation_costs\",\n  \"device\": \"" + facts.name +
                       "\",\n  \"date\": \"" + utc_date() + "\",\n  \"bytes\": " + std::to_string(bytes) +
                       ",\n  \"tries\": 5,\n  \"ways\": {";
    std::printf("getting %zu MiB of host memory (host clock, median of 5):\n", mib);
    std::printf("  %-28s %10s %16s %10s\n", "", "alloc", "alloc + touch", "release");
    const char* separator = "\n";
    for (const Way& way : ways()) {
        const Cost c = measure(way, bytes, 5);
        std::printf("  %-28s %7.2f ms %13.2f ms %7.2f ms\n", way.name, c.alloc_ms, c.alloc_touch_ms, c.release_ms);
        char entry[256];
        std::snprintf(entry, sizeof entry,
                      "%s    \"%s\": {\"alloc_ms\": %.2f, \"alloc_touch_ms\": %.2f, \"release_ms\": %.2f}", separator,
                      way.key, c.alloc_ms, c.alloc_touch_ms, c.release_ms);
        json += entry;
        separator = ",\n";
    }
    json += "\n  }\n}\n";
    return report_result(json, json_path);
}

}  // namespace

int main(int argc, char** argv) {
    std::string json_path;
    std::size_t mib = 256;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json" && i + 1 < argc) {
            json_path = argv[++i];
        } else if (arg == "--mib" && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
            mib = static_cast<std::size_t>(std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: %s [--json PATH] [--mib SIZE > 0]\n", argv[0]);
            return 2;
        }
    }
    try {
        return run(json_path, mib);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "host_allocation_costs: %s\n", error.what());
        return 1;
    }
}
