// lab02 program: runs four independent kernels in the NULL stream and then in
// four streams of your own, and prints (and writes) both timelines.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "lab02.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;

int run(const LabOptions& options) {
    constexpr int kStreams = 4;
    const std::size_t n = std::size_t{1} << 20;
    const DeviceFacts facts = query_device_facts(0);
    std::printf("%s: concurrentKernels = %d, %d SMs\n", facts.name.c_str(), facts.concurrent_kernels ? 1 : 0,
                facts.sm_count);

    std::vector<float> host(n);
    fill_input(host.data(), n);
    DeviceBuffer<float> input(n);
    SL_CHECK(cudaMemcpy(input.data(), host.data(), input.bytes(), cudaMemcpyHostToDevice));
    const int max_blocks = std::max(1, facts.sm_count / kStreams);
    const int iterations = iterations_for_kernel_ms(n, 2.0, max_blocks);
    std::vector<DeviceBuffer<float>> outputs;
    std::vector<lab02::KernelJob> jobs;
    for (int i = 0; i < kStreams; ++i) {
        outputs.emplace_back(n);
        jobs.push_back({input.data(), outputs.back().data(), n, iterations, max_blocks});
    }

    const Timeline serial =
        record_timeline("lab02: 4 kernels in the NULL stream", [&] { lab02::run_in_null_stream(jobs); });
    report_timeline(serial, "4 kernels in the NULL stream", options, "null");

    lab02::WaitReport report;
    const Timeline streams = record_timeline("lab02: 4 kernels in 4 non-blocking streams",
                                             [&] { report = lab02::run_in_streams(jobs, cudaStreamNonBlocking); });
    report_timeline(streams, "4 kernels in 4 streams", options);
    std::printf("cudaStreamQuery(last stream) right after the launches: %s\n",
                report.last_stream_idle_when_polled ? "idle" : "still working");
    std::printf("cudaStreamQuery(first stream) after cudaStreamSynchronize: %s\n",
                report.first_stream_idle_after_sync ? "idle" : "still working");
    if (!serial.ops.empty() && !streams.ops.empty()) {
        std::printf("speedup of streams over the NULL stream: %.2fx\n",
                    static_cast<double>(makespan_ns(serial.ops)) / makespan_ns(streams.ops));
    }

    std::vector<float> out(n);
    bool all_ok = true;
    for (const auto& job : jobs) {
        SL_CHECK(cudaMemcpy(out.data(), job.output, n * sizeof(float), cudaMemcpyDeviceToHost));
        const ResultCheck check = check_workload_output(host.data(), out.data(), n, iterations);
        all_ok = all_ok && check.ok;
        if (!check.ok) {
            std::printf("result: %s\n", check.message().c_str());
        }
    }
    std::printf("results: %s\n", all_ok ? "all kernels match the CPU reference" : "WRONG");
    return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    return run_lab_program(argc, argv, "Lab 02: creating streams", run);
}
