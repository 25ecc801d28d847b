// SL_RECORD_TIMELINE guards only the tracer's start: what the code under test
// throws, TimelineUnavailable included, is a failure, never a skip; and what
// worked earlier in the process (the GPU, the tracer) cannot be missing later
// without failing the test.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "streamlab/testing.hpp"

using streamlab::TimelineUnavailable;
using streamlab::grading::run_code_under_test;

TEST(CodeUnderTest, ATimelineUnavailableItThrowsBecomesAFailure) {
    try {
        run_code_under_test([] { throw TimelineUnavailable("the profiler is busy"); });
        FAIL() << "nothing was thrown";
    } catch (const TimelineUnavailable&) {
        FAIL() << "still a TimelineUnavailable: the test would be skipped";
    } catch (const std::logic_error& error) {
        EXPECT_NE(std::string(error.what()).find("the code under test threw streamlab::TimelineUnavailable"),
                  std::string::npos)
            << error.what();
    }
}

TEST(CodeUnderTest, OtherErrorsPassThroughUnchanged) {
    EXPECT_THROW(run_code_under_test([] { throw std::runtime_error("cudaErrorInvalidValue"); }), std::runtime_error);
}

TEST(CodeUnderTest, TheWorkRunsOnce) {
    int runs = 0;
    run_code_under_test([&] { ++runs; });
    EXPECT_EQ(runs, 1);
}

namespace {
void skip_unless_broken_here(bool worked_before) {
    SL_SKIP_UNLESS_BROKEN_HERE(worked_before, std::string("no GPU: no CUDA device"));
}
}  // namespace

TEST(SkipUnlessBrokenHere, WhatWorkedEarlierInTheProcessAndIsGoneFailsTheTest) {
    EXPECT_FATAL_FAILURE(skip_unless_broken_here(true),
                         "no longer usable after the code under test ran: no GPU: no CUDA device");
}

TEST(SkipUnlessBrokenHere, TheProcessRemembersThatItSawAGpu) {
    streamlab::grading::note_gpu_seen();
    EXPECT_TRUE(streamlab::grading::gpu_seen_before());
}
