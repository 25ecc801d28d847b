// Lab 02's recording program: the only course program that runs your functions
// for grading. It runs each scenario the graded tests need once, while CUPTI
// records, and sends what the GPU did and which runtime calls your code made to
// the recording harness. It judges nothing: the tests in test_lab02.cpp read its
// record afterwards, in processes that never load your code.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "lab02.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/recording.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using streamlab::record::Scenario;
using streamlab::recording::Session;

/// Independent kernels, one per stream, each small enough that all fit on the GPU at once.
constexpr int kStreams = 4;
/// Elements of each kernel's input and output.
constexpr std::size_t kElements = std::size_t{1} << 20;

void record_lab02(Session& session) {
    const DeviceFacts& facts = session.facts();
    // A little fewer than kElements, bound to this run (Session::salted_elements).
    const auto n = static_cast<std::size_t>(
        session.setup_value("n", [&] { return static_cast<double>(session.salted_elements(kElements)); }));
    const int max_blocks = std::max(1, facts.sm_count / kStreams);
    // Kernels of about 2 ms each on this GPU, on a grid that leaves room for the others.
    const int iterations = static_cast<int>(session.setup_value(
        "iterations", [&] { return static_cast<double>(iterations_for_kernel_ms(n, 2.0, max_blocks)); }));

    // Job i reads its own buffer, slice i of one seeded input, and writes its own:
    // one output sample of kStreams * n elements in kStreams chunks covers every job.
    std::vector<float> host(n);
    std::vector<DeviceBuffer<float>> inputs, outputs;
    std::vector<lab02::KernelJob> jobs;
    for (int i = 0; i < kStreams; ++i) {
        fill_input(host.data(), n, session.seed(), static_cast<std::size_t>(i) * n);
        inputs.emplace_back(n);
        outputs.emplace_back(n);
        SL_CHECK(cudaMemcpy(inputs.back().data(), host.data(), inputs.back().bytes(), cudaMemcpyHostToDevice));
        jobs.push_back({inputs.back().data(), outputs.back().data(), n, iterations, max_blocks});
    }

    // Your kernels in the NULL stream first, then in streams of your own, as the
    // overlap test compares them: the same kernels, a moment apart, on this GPU.
    session.scenario("null_stream", [&](Scenario& scenario) {
        session.record(scenario, "lab02 run_in_null_stream", [&] { lab02::run_in_null_stream(jobs); });
    });
    session.scenario("streams", [&](Scenario& scenario) {
        for (auto& output : outputs) {
            SL_CHECK(cudaMemset(output.data(), 0xFF, output.bytes()));  // NaN poison
        }
        SL_CHECK(cudaDeviceSynchronize());  // the poison is in place before your streams, which do not wait for it
        session.record(scenario, "lab02 run_in_streams",
                       [&] { (void)lab02::run_in_streams(jobs, cudaStreamNonBlocking); });
        std::vector<float> all(static_cast<std::size_t>(kStreams) * n);
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            SL_CHECK(cudaMemcpy(all.data() + i * n, outputs[i].data(), outputs[i].bytes(), cudaMemcpyDeviceToHost));
        }
        scenario.output = record::sample_output(all.data(), all.size(), iterations, kStreams, session.seed());
    });
}

}  // namespace

int main(int argc, char** argv) {
    return streamlab::recording::record_scenarios(argc, argv, record_lab02);
}
