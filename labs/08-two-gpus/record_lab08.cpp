// Lab 08's recording program: the only course program that runs your code for
// grading. On two GPUs it runs each scenario the graded tests need once (your
// split pipeline over both GPUs; the speed test's runs on GPU 0 alone, GPU 1
// alone and both; your hand-off from GPU 0 to GPU 1), each after a warm-up run,
// in host memory from your allocate_portable and device memory the course
// allocated on each GPU, while CUPTI records what every GPU did. On a machine
// with one GPU it records only that the lab needs two: every test is then not
// graded, with that reason. It judges nothing: the tests in test_lab08.cpp read
// its record afterwards, in processes that never load your code.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "course_side.hpp"
#include "lab08.hpp"
#include "streamlab/check.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/recording.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using namespace lab08::course;  // kChunks, kStreams, kHandoffChunks, kRepeats, scenarios
using streamlab::record::Scenario;
using streamlab::recording::Session;

/// Whether GPU `device` can reach GPU `peer`'s memory directly (peer access).
bool can_reach(int device, int peer) {
    int possible = 0;
    SL_CHECK(cudaDeviceCanAccessPeer(&possible, device, peer));
    return possible != 0;
}

/// How CUDA knows the host memory at `data`, into `scenario`'s values:
/// "input_pinned" (1: as pinned host memory, cudaHostGetFlags answers) and
/// "input_portable" (1: allocated as portable, every GPU treats it as pinned).
void put_host_memory_kind(const float* data, Scenario& scenario) {
    unsigned int flags = 0;
    const cudaError_t asked = cudaHostGetFlags(&flags, const_cast<float*>(data));
    if (asked != cudaSuccess) {
        (void)cudaGetLastError();  // memory CUDA did not allocate: no flags
    }
    scenario.values["input_pinned"] = asked == cudaSuccess ? 1 : 0;
    scenario.values["input_portable"] = asked == cudaSuccess && (flags & cudaHostAllocPortable) != 0 ? 1 : 0;
}

void record_lab08(Session& session) {
    // 256 MiB (less on a small GPU) that fits on both GPUs, a kernel over all of
    // it about as long as its whole copy in, on GPU 0.
    const auto n = static_cast<std::size_t>(session.setup_value("n", [&] {
        const std::size_t smaller =
            std::min(session.gpus()[0].total_memory_bytes, session.gpus()[1].total_memory_bytes);
        return static_cast<double>(session.salted_elements(pipeline_elements(smaller)));  // bound to this run
    }));
    const double h2d_ms = session.setup_value("h2d_ms", [&] { return measure_h2d_ms(n * sizeof(float)); });
    const int iterations = static_cast<int>(
        session.setup_value("iterations", [&] { return static_cast<double>(iterations_for_kernel_ms(n, h2d_ms)); }));
    session.setup_value("peer_access", [] { return can_reach(1, 0) ? 1.0 : 0.0; });

    // The memory your code is handed: host memory from your allocate_portable,
    // the input filled from the record's seed; each GPU's buffers, the course's.
    const PortableFloats input(n), output(n);
    if (input.data() == nullptr || output.data() == nullptr) {
        throw std::runtime_error("allocate_portable returned no memory");
    }
    fill_input(input.data(), n, session.seed());
    std::vector<GpuMemory> gpus;
    gpus.emplace_back(0, n);
    gpus.emplace_back(1, n);

    // The split job over `devices` (0 and 1: both GPUs; one of them: that GPU alone).
    const auto split_job = [&](const std::vector<int>& devices) {
        lab08::SplitJob job{input.data(), output.data(), n, iterations, kChunks, kStreams, {}};
        for (const int device : devices) {
            job.gpus.push_back(gpus[static_cast<std::size_t>(device)].part());
        }
        return job;
    };
    // Your `work` once to warm up, then once more, on a poisoned output and
    // called with device 0 current, while CUPTI records.
    const auto warm_up_then_record = [&](Scenario& scenario, const std::string& program,
                                         const std::function<void()>& work) {
        work();
        fill_poison(output.data(), n);
        SL_CHECK(cudaSetDevice(0));
        session.record(scenario, program, work);
    };

    // Tasks 1 and 2: the run `course check` draws.
    session.scenario(scenarios::kSplit, [&](Scenario& scenario) {
        const lab08::SplitJob job = split_job({0, 1});
        warm_up_then_record(scenario, "lab08 run_split", [&] { lab08::run_split(job); });
        int current_after = -1;
        SL_CHECK(cudaGetDevice(&current_after));
        scenario.values["current_device_after"] = current_after;
        put_host_memory_kind(input.data(), scenario);
        scenario.output = record::sample_output(output.data(), n, iterations, 2 * kChunks, session.seed());
    });
    // The speed test: kRepeats runs on each GPU alone and on both.
    const std::pair<const char*, std::vector<int>> timed_runs[] = {
        {scenarios::kGpu0Alone, {0}}, {scenarios::kGpu1Alone, {1}}, {scenarios::kBothGpus, {0, 1}}};
    for (const auto& [name, devices] : timed_runs) {
        const lab08::SplitJob job = split_job(devices);
        for (int repeat = 1; repeat <= kRepeats; ++repeat) {
            session.scenario(scenarios::timed(name, repeat), [&](Scenario& scenario) {
                warm_up_then_record(scenario, "lab08 run_split", [&] { lab08::run_split(job); });
            });
        }
    }
    // Task 3.
    session.scenario(scenarios::kHandoff, [&](Scenario& scenario) {
        const lab08::HandoffJob job{input.data(),   output.data(), n, iterations, kHandoffChunks,
                                    gpus[0].part(), gpus[1].part()};
        warm_up_then_record(scenario, "lab08 run_handoff", [&] { lab08::run_handoff(job); });
        scenario.output = record::sample_output(output.data(), n, iterations, kHandoffChunks, session.seed());
    });
}

}  // namespace

int main(int argc, char** argv) {
    return streamlab::recording::record_scenarios(argc, argv, record_lab08, /*gpus=*/2);
}
