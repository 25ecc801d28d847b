// The tracer records the program's NVTX ranges, and leaves OpLabel's out.
//
// NVTX reaches CUPTI only through an injection library named before the
// process's first NVTX call, so this test sets NVTX_INJECTION64_PATH to
// libstreamlab_inject.so first thing, in an executable of its own (ctest runs
// it alone): NVTX then hands its calls to the libcupti the tracer records with.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "streamlab/handles.hpp"
#include "streamlab/testing.hpp"
#include "streamlab/tracer.hpp"

namespace {

using namespace streamlab;

constexpr std::size_t kBytes = std::size_t{1} << 20;

TEST(NvtxRangesGpu, ProgramRangesAreRecordedAndLabelsAreNot) {
    ASSERT_EQ(setenv("NVTX_INJECTION64_PATH", STREAMLAB_INJECT_LIBRARY, 1), 0);
    SL_REQUIRE_GPU();
    DeviceBuffer<char> buffer(kBytes);
    const Stream stream(cudaStreamNonBlocking);
    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "nvtx ranges", [&] {
        nvtxRangePushA("outer");
        {
            const OpLabel label("chunk");  // its own NVTX domain: not one of the program's ranges
            SL_CHECK(cudaMemsetAsync(buffer.data(), 0, kBytes, stream.get()));
        }
        nvtxRangePushA("inner");
        SL_CHECK(cudaMemsetAsync(buffer.data(), 1, kBytes / 2, stream.get()));
        nvtxRangePop();
        SL_CHECK(cudaStreamSynchronize(stream.get()));
        nvtxRangePop();
        const nvtxRangeId_t started = nvtxRangeStartA("started");
        nvtxRangeEnd(started);
        nvtxRangePushA("left open");  // still open when recording ends: left out
    });
    nvtxRangePop();

    std::vector<std::string> names;
    for (const HostRange& range : timeline.ranges) {
        names.push_back(range.name);
    }
    ASSERT_EQ(names, (std::vector<std::string>{"outer", "inner", "started"}))
        << "NVTX ranges missing: is NVTX handing its calls to CUPTI?";
    const HostRange& outer = timeline.ranges[0];
    const HostRange& inner = timeline.ranges[1];
    EXPECT_LE(outer.start_ns, inner.start_ns);
    EXPECT_LE(inner.end_ns, outer.end_ns);
    EXPECT_LE(outer.end_ns, timeline.ranges[2].start_ns);
    EXPECT_EQ(outer.thread, inner.thread);
    // Both memsets were issued inside "outer" and finished before it closed (synchronized).
    ASSERT_EQ(timeline.ops.size(), 2U);
    for (const DeviceOp& op : timeline.ops) {
        EXPECT_GE(op.start_ns, outer.start_ns);
        EXPECT_LE(op.end_ns, outer.end_ns);
    }
    EXPECT_EQ(timeline.ops[0].label, "chunk");
}

}  // namespace
