// The census of streams, events and pinned-in-place memory a program leaves
// behind (what `course check NN --sanitize` adds to compute-sanitizer's leak
// check). This executable is linked like a lab program: its calls are wrapped.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "resource_census.hpp"
#include "streamlab/check.hpp"
#include "streamlab/testing.hpp"

namespace {

/// How many lines of the census name `kind` (e.g. "\"kind\": \"stream\"").
int lines_with(const std::string& census, const std::string& kind) {
    int count = 0;
    for (std::size_t at = census.find(kind); at != std::string::npos; at = census.find(kind, at + 1)) {
        ++count;
    }
    return count;
}

TEST(Census, NamesWhatIsStillAliveAndForgetsWhatWasReleased) {
    SL_REQUIRE_GPU();
    const std::string before = streamlab::detail::resource_census_report();
    cudaStream_t stream = nullptr;
    cudaEvent_t event = nullptr;
    std::vector<char> host(1 << 20, 1);
    SL_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    SL_CHECK(cudaEventCreate(&event));
    SL_CHECK(cudaHostRegister(host.data(), host.size(), cudaHostRegisterDefault));

    const std::string alive = streamlab::detail::resource_census_report();
    EXPECT_EQ(lines_with(alive, "\"kind\": \"stream\""), lines_with(before, "\"kind\": \"stream\"") + 1) << alive;
    EXPECT_EQ(lines_with(alive, "\"kind\": \"event\""), lines_with(before, "\"kind\": \"event\"") + 1) << alive;
    EXPECT_EQ(lines_with(alive, "registered host memory"), lines_with(before, "registered host memory") + 1) << alive;
    EXPECT_NE(alive.find("cudaStreamCreateWithFlags"), std::string::npos) << alive;
    EXPECT_NE(alive.find("common_census_gpu_tests"), std::string::npos) << "the frames name this executable: " << alive;

    SL_CHECK(cudaHostUnregister(host.data()));
    SL_CHECK(cudaEventDestroy(event));
    SL_CHECK(cudaStreamDestroy(stream));
    EXPECT_EQ(streamlab::detail::resource_census_report(), before);
}

}  // namespace
