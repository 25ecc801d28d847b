// The workload kernel against its CPU reference, and the device facts.
#include <gtest/gtest.h>

#include "streamlab/device.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/testing.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;

TEST(WorkloadGpu, KernelMatchesCpuReference) {
    SL_REQUIRE_GPU();
    const std::size_t n = (1 << 20) + 3;  // not a multiple of the block size
    const int iterations = 64;
    PinnedBuffer<float> in(n), out(n);
    fill_input(in.data(), n);
    fill_poison(out.data(), n);
    DeviceBuffer<float> d_in(n), d_out(n);
    SL_CHECK(cudaMemcpy(d_in.data(), in.data(), in.bytes(), cudaMemcpyHostToDevice));
    launch_workload(d_in.data(), d_out.data(), n, iterations, nullptr);
    SL_CHECK(cudaMemcpy(out.data(), d_out.data(), out.bytes(), cudaMemcpyDeviceToHost));
    const ResultCheck result = check_workload_output(in.data(), out.data(), n, iterations);
    EXPECT_TRUE(result.ok) << result.message();
    EXPECT_EQ(result.compared, n + 3);  // every element, plus the boundaries once more
}

TEST(WorkloadGpu, CappedGridStillCoversEveryElement) {
    SL_REQUIRE_GPU();
    const std::size_t n = 100000;
    PinnedBuffer<float> in(n), out(n);
    fill_input(in.data(), n, 7);
    fill_poison(out.data(), n);
    DeviceBuffer<float> d_in(n), d_out(n);
    SL_CHECK(cudaMemcpy(d_in.data(), in.data(), in.bytes(), cudaMemcpyHostToDevice));
    launch_workload(d_in.data(), d_out.data(), n, 10, nullptr, /*max_blocks=*/2);
    SL_CHECK(cudaMemcpy(out.data(), d_out.data(), out.bytes(), cudaMemcpyDeviceToHost));
    const ResultCheck result = check_workload_output(in.data(), out.data(), n, 10);
    EXPECT_TRUE(result.ok) << result.message();
}

TEST(WorkloadGpu, MoreIterationsTakeLonger) {
    SL_REQUIRE_GPU();
    const std::size_t n = 1 << 22;
    DeviceBuffer<float> d_in(n), d_out(n);
    SL_CHECK(cudaMemset(d_in.data(), 0, d_in.bytes()));
    Event a(cudaEventDefault), b(cudaEventDefault), c(cudaEventDefault);
    launch_workload(d_in.data(), d_out.data(), n, 8, nullptr);  // warm-up
    a.record();
    launch_workload(d_in.data(), d_out.data(), n, 16, nullptr);
    b.record();
    launch_workload(d_in.data(), d_out.data(), n, 1024, nullptr);
    c.record();
    c.synchronize();
    const float light = elapsed_ms(a, b);
    const float heavy = elapsed_ms(b, c);
    grading::report_measure("heavy / light kernel time", heavy / light, ">", 4.0, "x");
    EXPECT_GT(heavy, 4.0F * light) << "iterations must control the kernel's arithmetic";
}

TEST(DeviceGpu, FactsAreFilledIn) {
    SL_REQUIRE_GPU();
    const DeviceFacts facts = query_device_facts(0);
    EXPECT_FALSE(facts.name.empty());
    EXPECT_GE(facts.cc_major, 7);
    EXPECT_GT(facts.sm_count, 0);
    EXPECT_GE(facts.copy_engines, 1);
    EXPECT_GT(facts.total_memory_bytes, 0U);
    EXPECT_GE(facts.driver_version, facts.runtime_version / 1000 * 1000)
        << "the driver must be at least as new as the runtime's major version";
}

}  // namespace
