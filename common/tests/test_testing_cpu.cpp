// SL_RECORD_TIMELINE guards only the tracer's start: what the code under test
// throws, TimelineUnavailable included, is a failure, never a skip.
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
    EXPECT_THROW(run_code_under_test([] { throw std::runtime_error("cudaErrorInvalidValue"); }),
                 std::runtime_error);
}

TEST(CodeUnderTest, TheWorkRunsOnce) {
    int runs = 0;
    run_code_under_test([&] { ++runs; });
    EXPECT_EQ(runs, 1);
}
