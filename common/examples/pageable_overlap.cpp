// pageable_overlap: does a copy from pageable memory run beside a kernel that is
// already queued in another stream?
//
// A kernel (about three times as long as the copy) is queued in non-blocking
// stream A; then a 256 MiB H2D copy from ordinary (pageable) host memory is
// queued with cudaMemcpyAsync in non-blocking stream B. The GPU's timeline shows
// whether the copy ran while the kernel did; the host clock shows how long the
// cudaMemcpyAsync call took to return (for a pageable source it returns only
// once the data has been staged, so the host cannot run ahead). The same is done
// with a pinned source for comparison.
//
// Usage: pageable_overlap [--trace PATH] [--json PATH]
//   --trace PATH   the pageable run's timeline (default pageable_overlap.json)
//   --json PATH    the measured figures, with device and date (default: stdout only)
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "measurement_result.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/trace_file.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;

constexpr std::size_t kBytes = std::size_t{256} << 20;

/// What one run shows: the copy, the kernel, the time they ran together, and how
/// long the host waited in cudaMemcpyAsync.
struct OverlapRun {
    Timeline timeline;
    double copy_ms = 0, kernel_ms = 0, together_ms = 0, call_returned_after_ms = 0;
};

/// The kernel in stream A, then the copy from `host` in stream B, recorded.
OverlapRun run(const char* name, float* host, DeviceBuffer<float>& device, DeviceBuffer<float>& kernel_in,
               DeviceBuffer<float>& kernel_out, int iterations) {
    Stream a(cudaStreamNonBlocking), b(cudaStreamNonBlocking);
    OverlapRun r;
    r.timeline = record_timeline(std::string("pageable_overlap: ") + name, [&] {
        launch_workload(kernel_in.data(), kernel_out.data(), kernel_in.size(), iterations, a.get());
        const auto called = std::chrono::steady_clock::now();
        SL_CHECK(cudaMemcpyAsync(device.data(), host, kBytes, cudaMemcpyHostToDevice, b.get()));
        r.call_returned_after_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - called).count();
        SL_CHECK(cudaDeviceSynchronize());
    });
    std::vector<Interval> copies, kernels;
    for (const DeviceOp& op : r.timeline.ops) {
        (op.kind == OpKind::Kernel ? kernels : copies).push_back({op.start_ns, op.end_ns});
    }
    r.copy_ms = ms(total_length(copies));
    r.kernel_ms = ms(total_length(kernels));
    r.together_ms = ms(intersection_length(copies, kernels));
    std::printf(
        "%-9s copy %.3f ms, kernel %.3f ms, together %.3f ms (%.0f%% of the copy); "
        "cudaMemcpyAsync returned after %.3f ms\n",
        name, r.copy_ms, r.kernel_ms, r.together_ms, r.copy_ms > 0 ? 100.0 * r.together_ms / r.copy_ms : 0.0,
        r.call_returned_after_ms);
    return r;
}

std::string json_of(const char* name, const OverlapRun& r) {
    char text[512];
    std::snprintf(text, sizeof text,
                  "  \"%s\": {\"copy_ms\": %.3f, \"kernel_ms\": %.3f, \"together_ms\": %.3f, "
                  "\"call_returned_after_ms\": %.3f}",
                  name, r.copy_ms, r.kernel_ms, r.together_ms, r.call_returned_after_ms);
    return text;
}

int measure(const std::string& trace_path, const std::string& json_path) {
    const std::size_t n = kBytes / sizeof(float);
    std::vector<float> pageable(n);
    PinnedBuffer<float> pinned(n);
    fill_input(pageable.data(), n);
    fill_input(pinned.data(), n);
    DeviceBuffer<float> device(n), kernel_in(n), kernel_out(n);
    SL_CHECK(cudaMemset(kernel_in.data(), 0, kernel_in.bytes()));
    const int iterations = iterations_for_kernel_ms(n, 3.0 * measure_h2d_ms(kBytes));
    (void)run("warm-up", pageable.data(), device, kernel_in, kernel_out, iterations);
    const OverlapRun from_pageable = run("pageable", pageable.data(), device, kernel_in, kernel_out, iterations);
    const OverlapRun from_pinned = run("pinned", pinned.data(), device, kernel_in, kernel_out, iterations);
    write_trace(trace_path, from_pageable.timeline);
    std::printf("trace written to %s\n", trace_path.c_str());

    const std::string json = "{\n  \"program\": \"pageable_overlap\",\n  \"device\": \"" +
                             from_pageable.timeline.device.name + "\",\n  \"date\": \"" + from_pageable.timeline.date +
                             "\",\n  \"bytes\": " + std::to_string(kBytes) + ",\n" +
                             json_of("pageable", from_pageable) + ",\n" + json_of("pinned", from_pinned) + "\n}\n";
    return report_result(json, json_path);
}

}  // namespace

int main(int argc, char** argv) {
    std::string trace_path = "pageable_overlap.json", json_path;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--trace" || arg == "--json") && i + 1 < argc) {
            (arg == "--trace" ? trace_path : json_path) = argv[++i];
        } else {
            std::fprintf(stderr, "usage: %s [--trace PATH] [--json PATH]\n", argv[0]);
            return 2;
        }
    }
    try {
        return measure(trace_path, json_path);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "pageable_overlap: %s\n", error.what());
        return 1;
    }
}
