// The GPU models the simulator knows, from the course's committed measurements.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "streamlab/simgpu.hpp"

namespace streamlab::simgpu {

namespace {

// One gigabyte per second is one byte per ns: GB/s are the model's bytes per ns.
constexpr double kStageBytes = 268435456.0;  // The 256 MiB every H200 stage time below moved.

GpuModel h200() {
    GpuModel model;
    // Device facts as the course's tracer recorded them on the H200 (the "device" object of
    // common/reference/h200_chunks.json and of every H200 record).
    model.name = "NVIDIA H200";
    model.compute_capability_major = 9;
    model.compute_capability_minor = 0;
    model.sm_count = 132;
    model.copy_engines = 3;
    model.total_memory_bytes = 150109880320ULL;
    // Pinned copies: common/reference/h200_stage_times.json, 256 MiB each way in 4.854 ms.
    model.h2d_pinned_gb_per_s = kStageBytes / 4.854e6;
    model.d2h_pinned_gb_per_s = kStageBytes / 4.854e6;
    // Pageable copies: common/reference/h200_quoted_numbers.json, bandwidth_256mib_events (pinned-memory probe).
    model.h2d_pageable_gb_per_s = 8.2;
    model.d2h_pageable_gb_per_s = 13.9;
    // Device-to-device copies, not measured by the course: an estimate from the H200's 4.8 TB/s of memory
    // bandwidth (NVIDIA's data sheet), halved because a copy both reads and writes through the same memory.
    model.d2d_gb_per_s = 2400.0;
    // Memsets: the H200 record of the starter in common/tests/records/09-why-streams-serialize/ (its pipeline
    // scenario): four cudaMemset of 64 MiB, 16.6 to 17.3 us each on the GPU, their median 16.896 us.
    model.memset_gb_per_s = 67108864.0 / 16896.0;
    // Page-locking host memory: common/reference/h200_quoted_numbers.json, host_allocation_costs (256 MiB):
    // cudaMallocHost 92.6 ms to allocate and 23.83 ms to free, cudaHostRegister 77.19 ms and 12.0 ms.
    model.pinned_alloc_ns_per_byte = 92.6e6 / kStageBytes;
    model.pinned_free_ns_per_byte = 23.83e6 / kStageBytes;
    model.host_register_ns_per_byte = 77.19e6 / kStageBytes;
    model.host_unregister_ns_per_byte = 12.0e6 / kStageBytes;
    // The workload kernel: the H200 record of the stage-by-stage solution in common/tests/records/05-three-chunks/,
    // its serial scenario's kernel: 67108864 elements x 513 iterations in 5.021634 ms.
    model.workload_element_iterations_per_ns = 67108864.0 * 513.0 / 5021634.0;
    // The same record: its serial scenario's cudaLaunchKernel call began at 4.949581 ms and the kernel at
    // 4.971789 ms; its pipeline's cudaEventRecord and cudaStreamWaitEvent calls came 1.7 to 2.5 us apart.
    model.launch_latency_ns = 20000;
    model.api_call_ns = 2000;
    // The same record: each cudaMemset call began 23 to 40 us (median 25) before the program's next
    // call, and its memset started on the GPU 20 to 38 us after the call began, as the call returned.
    model.call_ns["cudaMemset"] = 25000;
    model.source =
        "device facts: common/reference/h200_chunks.json (device); pinned copies: "
        "common/reference/h200_stage_times.json; pageable copies: common/reference/h200_quoted_numbers.json "
        "(bandwidth_256mib_events); page-locking costs: common/reference/h200_quoted_numbers.json "
        "(host_allocation_costs); device-to-device copies: estimated from the H200's 4.8 TB/s "
        "data sheet bandwidth, not measured; workload kernel, launch latency and call cost: "
        "the H200 record of the stage-by-stage solution in common/tests/records/05-three-chunks/ (2026-12-04); "
        "memsets and the cost of a cudaMemset call: the H200 record of the starter in "
        "common/tests/records/09-why-streams-serialize/";
    return model;
}

GpuModel chosen_model() {
    const char* wanted = std::getenv("STREAMLAB_SIM_GPU");
    if (wanted != nullptr && *wanted != '\0' && std::string(wanted) != "H200" && std::string(wanted) != "NVIDIA H200") {
        std::fprintf(stderr,
                     "simulated GPU: STREAMLAB_SIM_GPU=%s names no model the course has (it has H200); "
                     "simulating an H200\n",
                     wanted);
    }
    return h200();
}

}  // namespace

const GpuModel& gpu_model() {
    static const GpuModel model = chosen_model();
    return model;
}

}  // namespace streamlab::simgpu
