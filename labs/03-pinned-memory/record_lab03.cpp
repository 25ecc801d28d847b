// Lab 03's recording program: the only course program that runs your copies for
// grading. It runs each scenario the graded tests need once, while CUPTI records
// the kind of host memory, the bytes, the start and the end of every copy and
// counts the runtime calls, and sends what it recorded to the recording harness.
// It judges nothing: the tests in test_lab03.cpp read its record afterwards, in
// processes that never load your code.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "copy_scenarios.hpp"
#include "lab03.hpp"
#include "streamlab/bandwidth.hpp"
#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/recording.hpp"

namespace {

using namespace streamlab;
using lab03::HostBuffer;
using lab03::scenarios::kRepetitions;
using streamlab::record::Scenario;
using streamlab::recording::Session;

constexpr std::size_t kMiB = std::size_t{1} << 20;

void record_lab03(Session& session) {
    const DeviceFacts& facts = session.facts();
    // 64 MiB is past the size where bandwidth levels off, and small enough for any GPU and host.
    const auto large = static_cast<std::size_t>(session.setup_value("large_bytes", [&] {
        return static_cast<double>(
            largest_copy_bytes(64 * kMiB, facts.total_memory_bytes, available_host_memory_bytes()));
    }));
    const auto small = static_cast<std::size_t>(session.setup_value(
        "small_bytes", [&] { return static_cast<double>(std::max<std::size_t>(4096, large / 64)); }));
    const std::vector<std::size_t> sizes = {small, large};
    DeviceBuffer<unsigned char> device(large);

    // Your run_copies with a buffer of each kind, `repetitions` copies of each size each way.
    const auto record_copies = [&](Scenario& scenario, const std::string& program,
                                   std::initializer_list<HostBuffer> kinds, int repetitions) {
        session.record(scenario, "lab03 run_copies, " + program, [&] {
            for (const HostBuffer kind : kinds) {
                lab03::run_copies(kind, sizes, repetitions, device.data());
            }
        });
    };

    // The course's own copies of the large size each way, from pinned memory and
    // from pageable memory it allocates itself (outside the recording).
    session.scenario(lab03::scenarios::kReference, [&](Scenario& scenario) {
        PinnedBuffer<unsigned char> pinned(large);
        std::vector<unsigned char> pageable(large, 1);
        std::memset(pinned.data(), 1, large);
        session.record(scenario, "lab03 reference copies", [&] {
            for (void* host : {static_cast<void*>(pinned.data()), static_cast<void*>(pageable.data())}) {
                for (int i = 0; i < kRepetitions; ++i) {
                    SL_CHECK(cudaMemcpy(device.data(), host, large, cudaMemcpyHostToDevice));
                }
                for (int i = 0; i < kRepetitions; ++i) {
                    SL_CHECK(cudaMemcpy(host, device.data(), large, cudaMemcpyDeviceToHost));
                }
            }
        });
    });
    for (const lab03::scenarios::BufferRun& run : lab03::scenarios::kBufferRuns) {
        session.scenario(run.scenario,
                         [&](Scenario& scenario) { record_copies(scenario, run.memory, {run.kind}, kRepetitions); });
    }
    session.scenario(lab03::scenarios::kAllocations, [&](Scenario& scenario) {
        record_copies(scenario, "cudaMallocHost and cudaHostAlloc", {HostBuffer::MallocHost, HostBuffer::HostAlloc}, 1);
    });
    session.scenario(lab03::scenarios::kRegistration, [&](Scenario& scenario) {
        record_copies(scenario, "cudaHostRegister", {HostBuffer::Registered}, 1);
    });
}

}  // namespace

int main(int argc, char** argv) {
    return streamlab::recording::record_scenarios(argc, argv, record_lab03);
}
