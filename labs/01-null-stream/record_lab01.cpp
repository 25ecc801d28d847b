// Lab 01's recording program: the only course program that runs your functions
// for grading. It runs each scenario the graded tests need once, while CUPTI
// records, and sends what the GPU did and which runtime calls your code made to
// the recording harness. It judges nothing: the tests in test_lab01.cpp read its
// record afterwards, in processes that never load your code.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "demo_buffers.hpp"
#include "lab01.hpp"
#include "lab01_record.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/recording.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using streamlab::record::Scenario;
using streamlab::recording::Session;

using lab01::course::kDemoElements;
using lab01::course::kSerialElements;

/// A device buffer's floats, copied to the host.
std::vector<float> on_host(const DeviceBuffer<float>& buffer) {
    std::vector<float> host(buffer.size());
    SL_CHECK(cudaMemcpy(host.data(), buffer.data(), buffer.bytes(), cudaMemcpyDeviceToHost));
    return host;
}

void record_lab01(Session& session) {
    const std::size_t serial_elements = session.salted_elements(kSerialElements);
    PinnedBuffer<float> input(serial_elements), output(serial_elements);
    fill_input(input.data(), serial_elements, session.seed());
    // A kernel about as long as one copy of the input.
    const int iterations = static_cast<int>(session.setup_value("iterations", [&] {
        return static_cast<double>(iterations_for_kernel_ms(serial_elements, measure_h2d_ms(input.bytes())));
    }));
    const lab01::DemoBuffers demo(kDemoElements, session.seed());
    // Timed once: a restart after a crash reads it back from the set-up.
    const int demo_iterations = static_cast<int>(session.setup_value(
        "demo_iterations", [&] { return static_cast<double>(demo.kernel_iterations(session.facts())); }));
    const lab01::DemoWork work = demo.work(session.facts(), demo_iterations);

    session.scenario("serial", [&](Scenario& scenario) {
        fill_poison(output.data(), serial_elements);
        float reported_ms = 0.0F;
        session.record(scenario, "lab01 run_serial", [&] {
            reported_ms = lab01::run_serial(input.data(), output.data(), serial_elements, iterations);
        });
        scenario.values["returned_ms"] = reported_ms;
        scenario.output = record::sample_output(output.data(), serial_elements, iterations, 1, session.seed());
    });

    // The demo with each kind of stream. The three kernels read the same input:
    // kernel A's output is sampled (the judge recomputes it from the seed), and
    // B's and C's are compared with A's in full.
    struct Variant {
        const char* scenario;
        unsigned int flags;
    };
    for (const Variant variant :
         {Variant{"barrier_blocking", cudaStreamDefault}, Variant{"barrier_nonblocking", cudaStreamNonBlocking}}) {
        session.scenario(variant.scenario, [&](Scenario& scenario) {
            for (const auto& kernel_output : demo.outputs) {
                SL_CHECK(cudaMemset(kernel_output.data(), 0xFF, kernel_output.bytes()));  // NaN poison
            }
            SL_CHECK(cudaDeviceSynchronize());  // the poison is in place before streams that may not wait for it
            session.record(scenario, std::string("lab01 run_barrier_demo, ") + variant.scenario,
                           [&] { lab01::run_barrier_demo(variant.flags, work); });
            const std::vector<float> a = on_host(demo.outputs[0]);
            scenario.output = record::sample_output(a.data(), kDemoElements, work.iterations, 1, session.seed());
            scenario.values["b_elements_unlike_a"] =
                static_cast<double>(count_differing(on_host(demo.outputs[1]).data(), a.data(), kDemoElements));
            scenario.values["c_elements_unlike_a"] =
                static_cast<double>(count_differing(on_host(demo.outputs[2]).data(), a.data(), kDemoElements));
        });
    }
}

}  // namespace

int main(int argc, char** argv) {
    return streamlab::recording::record_scenarios(argc, argv, record_lab01);
}
