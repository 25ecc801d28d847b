/// @file simgpu_test.hpp
/// @brief What the simulated GPU's tests share: a fresh simulator for every test, the ops a test issued found
/// by their labels, and a kernel whose duration and share of the GPU the test chooses.
///
/// Each test states one rule NVIDIA documents for the CUDA runtime (the Runtime API reference, the Programming
/// Guide's section on streams, "API synchronization behavior", "Stream synchronization behavior") and checks it
/// on the simulated timeline (simgpu::log_since) and the simulated host clock (simgpu::host_now_ns). The
/// expectations come from the documentation, never from what the simulator happened to print: a rule the
/// simulator breaks fails here.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/simgpu.hpp"
#include "streamlab/timeline.hpp"

/// Expects a runtime call to succeed, naming the call when it does not.
#define EXPECT_CUDA_OK(call) EXPECT_EQ((call), cudaSuccess) << #call
/// Asserts that a runtime call succeeds, naming the call when it does not.
#define ASSERT_CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

namespace streamlab::simgpu::testing {

/// How long the test kernel of a scheduling test runs on the model: long beside what a runtime call costs the
/// host (microseconds), so that "the call returned before the work ended" cannot hold by accident of timing.
inline constexpr std::uint64_t kLongKernelNs = 50'000'000;

/// Bytes of the copies the copy tests make: large enough for a copy to last a while on the model (about a
/// millisecond over the H200's link), small enough for the CPU to do it at once.
inline constexpr std::size_t kCopyBytes = std::size_t{64} << 20;

/// Registers the test kernel's model (see launch_busy); every test does, after the simulator is reset.
void register_busy_kernel();

/// Queues the test kernel in `stream`: it does nothing on the CPU and lasts `duration_ns` on the model, holding
/// `blocks` of the GPU's SMs (one block to an SM), so that the tests choose whether two kernels fit side by side.
/// Returns the launch's error (cudaGetLastError).
cudaError_t launch_busy(cudaStream_t stream, std::uint64_t duration_ns, unsigned int blocks);

/// Blocks that hold `fraction` of the model's SMs (at least one).
[[nodiscard]] unsigned int blocks_for_share(double fraction);

/// Whether two ops ran at the same time for a while.
[[nodiscard]] inline bool overlap(const DeviceOp& a, const DeviceOp& b) {
    return a.start_ns < b.end_ns && b.start_ns < a.end_ns;
}

/// Makes `label` the label of the ops this thread issues while it lives (simgpu::exchange_thread_label), so a
/// test finds its ops by the names it gave them.
class Labelled {
public:
    explicit Labelled(std::string label) : label_(std::move(label)), previous_(exchange_thread_label(&label_)) {}
    ~Labelled() { exchange_thread_label(previous_); }
    Labelled(const Labelled&) = delete;
    Labelled& operator=(const Labelled&) = delete;

private:
    std::string label_;
    const std::string* previous_;
};

/// Every test starts on a simulator that holds nothing (no stream, event, allocation or op) and reads what
/// happened from its own start on.
class SimGpuTest : public ::testing::Test {
protected:
    void SetUp() override {
        reset_for_tests();
        register_busy_kernel();
        // The host's waits block rather than spin (cudaDeviceScheduleBlockingSync): a test reads the simulated
        // clock, which a wait moves as far either way, and spinning through every wait would cost the suite
        // seconds of CPU. The tests of the schedule flags set the flag they test.
        EXPECT_CUDA_OK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
        since_ns_ = host_now_ns();
    }
    void TearDown() override { reset_for_tests(); }

    /// The ops the simulated GPU ran since the test started, sorted by start. Read them once the host has
    /// waited for them: the scheduler only decides an op's times when the host's clock reaches them.
    [[nodiscard]] std::vector<DeviceOp> ops() const { return log_since(since_ns_).ops; }

    /// The one op the test issued under `label`; fails the test when there is none or more than one.
    [[nodiscard]] DeviceOp op(const std::string& label) const {
        std::vector<DeviceOp> found;
        for (const DeviceOp& each : ops()) {
            if (each.label == label) {
                found.push_back(each);
            }
        }
        EXPECT_EQ(found.size(), 1U) << "ops labelled \"" << label << "\"";
        return found.empty() ? DeviceOp{} : found.front();
    }

    /// Queues the test kernel under `label` (see launch_busy) and checks that the launch was accepted.
    void busy(const std::string& label, cudaStream_t stream, double share = 0.25,
              std::uint64_t duration_ns = kLongKernelNs) {
        const Labelled labelled(label);
        ASSERT_EQ(launch_busy(stream, duration_ns, blocks_for_share(share)), cudaSuccess) << label;
    }

    /// Queues cudaMemcpyAsync under `label` and expects it to succeed; returns the host clock when the call
    /// returned.
    std::uint64_t copy_async(const std::string& label, void* destination, const void* source, std::size_t bytes,
                             cudaMemcpyKind kind, cudaStream_t stream) {
        const Labelled labelled(label);
        EXPECT_CUDA_OK(cudaMemcpyAsync(destination, source, bytes, kind, stream)) << label;
        return host_now_ns();
    }
    /// The same with cudaMemcpy.
    std::uint64_t copy(const std::string& label, void* destination, const void* source, std::size_t bytes,
                       cudaMemcpyKind kind) {
        const Labelled labelled(label);
        EXPECT_CUDA_OK(cudaMemcpy(destination, source, bytes, kind)) << label;
        return host_now_ns();
    }

private:
    std::uint64_t since_ns_ = 0;
};

}  // namespace streamlab::simgpu::testing
