/// @file copy_scenarios.hpp
/// @brief Lab 03's scenarios: what the recording program (record_lab03.cpp) runs
/// and the judges (test_lab03.cpp) read. Course code, shared by both; it calls
/// nothing of yours.
#pragma once

#include "lab03.hpp"

/// Lab 03: pinned memory.
namespace lab03 {

/// The scenarios of lab 03's record and how their runs are made.
namespace scenarios {

/// How often each run_copies scenario copies each size each way (the best of them counts).
inline constexpr int kRepetitions = 3;

/// The course's own copies of the large size, from pinned and from pageable
/// memory it allocates itself: the reference the bandwidth judges compare with.
inline constexpr const char* kReference = "reference";

/// run_copies with a cudaMallocHost buffer, then with a cudaHostAlloc buffer,
/// one copy each way: the runtime calls that show every allocation freed.
inline constexpr const char* kAllocations = "allocations";

/// run_copies with ordinary memory pinned in place, one copy each way: the
/// runtime calls that show every registration undone.
inline constexpr const char* kRegistration = "registration";

/// One kind of host buffer as the record holds it: the scenario of its
/// run_copies(kind, {small, large}, kRepetitions, device), and how it gets its memory.
struct BufferRun {
    HostBuffer kind;       ///< The host buffer run_copies used.
    const char* scenario;  ///< The scenario's name in the record ("copies_pageable", ...).
    /// How the buffer gets its memory, in the course's words ("pageable", "cudaMallocHost", ...):
    /// the judges name a buffer without lab03::to_string, which is in your file.
    const char* memory;
};

/// Every kind of host buffer, in the order the recording runs them.
inline constexpr BufferRun kBufferRuns[] = {
    {HostBuffer::Pageable, "copies_pageable", "pageable"},
    {HostBuffer::MallocHost, "copies_malloc_host", "cudaMallocHost"},
    {HostBuffer::HostAlloc, "copies_host_alloc", "cudaHostAlloc"},
    {HostBuffer::Registered, "copies_registered", "cudaHostRegister"},
};

/// The entry of kBufferRuns for `kind`.
[[nodiscard]] constexpr const BufferRun& buffer_run(HostBuffer kind) {
    for (const BufferRun& run : kBufferRuns) {
        if (run.kind == kind) {
            return run;
        }
    }
    return kBufferRuns[0];  // every HostBuffer has its entry
}

}  // namespace scenarios

}  // namespace lab03
