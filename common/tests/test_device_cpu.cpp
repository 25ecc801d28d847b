// Device facts that make sense with or without a GPU.
#include <gtest/gtest.h>

#include "streamlab/check.hpp"
#include "streamlab/device.hpp"

namespace {

TEST(Device, PresenceQueryNeverThrowsAndExplainsAbsence) {
    streamlab::GpuPresence presence;
    EXPECT_NO_THROW(presence = streamlab::query_gpu_presence());
    if (presence.available) {
        EXPECT_GT(presence.device_count, 0);
        EXPECT_TRUE(presence.reason.empty());
    } else {
        EXPECT_EQ(presence.device_count, 0);
        EXPECT_FALSE(presence.reason.empty());
    }
}

TEST(Device, FactsOfAMissingDeviceThrowWithAReason) {
    // Device 1000 exists nowhere; without a driver the error differs, but it is always an error.
    EXPECT_THROW((void)streamlab::query_device_facts(1000), streamlab::CudaError);
}

TEST(Device, VersionsAndComputeCapabilityFormat) {
    EXPECT_EQ(streamlab::format_cuda_version(13000), "13.0");
    EXPECT_EQ(streamlab::format_cuda_version(12080), "12.8");
    streamlab::DeviceFacts facts;
    facts.cc_major = 9;
    facts.cc_minor = 0;
    EXPECT_EQ(facts.compute_capability(), "9.0");
}

TEST(Device, TooFewGpusIsTheReasonTheGraderCountsAsNotGraded) {
    EXPECT_EQ(streamlab::needs_gpus_reason(2, 1), "not graded: needs two GPUs (this machine has 1)");
    EXPECT_EQ(streamlab::needs_gpus_reason(1, 0), "not graded: needs one GPU (this machine has 0)");
    EXPECT_EQ(streamlab::needs_gpus_reason(12, 4), "not graded: needs 12 GPUs (this machine has 4)");
}

}  // namespace
