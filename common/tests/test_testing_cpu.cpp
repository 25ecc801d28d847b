// SL_RECORD_TIMELINE guards only the tracer's start: what the code under test
// throws, TimelineUnavailable included, is a failure, never a skip; and what
// worked earlier in the process (the GPU, the tracer) cannot be missing later
// without failing the test.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

TEST(NoneFound, NoProblemsPassAndSomeFailListingTheFirstFive) {
    using streamlab::grading::none_found;
    testing::internal::CaptureStdout();
    EXPECT_TRUE(none_found({}, "hazards", "hazard(s) found", "wait first"));
    const std::vector<std::string> problems{"a", "b", "c", "d", "e", "f"};
    const testing::AssertionResult found = none_found(problems, "hazards", "hazard(s) found", "wait first");
    const std::string printed = testing::internal::GetCapturedStdout();
    ASSERT_FALSE(found);
    const std::string message = found.message();
    EXPECT_EQ(message.find("6 hazard(s) found:"), 0U) << message;
    EXPECT_NE(message.find("\n  e"), std::string::npos) << message;
    EXPECT_EQ(message.find("\n  f"), std::string::npos) << "only the first five are listed: " << message;
    EXPECT_NE(printed.find("STREAMLAB-HINT \"wait first\""), std::string::npos) << printed;
    EXPECT_EQ(printed.find("STREAMLAB-HINT"), printed.rfind("STREAMLAB-HINT")) << "no hint when nothing was found";
}

namespace {
/// The properties the running test has recorded (RecordProperty), key -> value, in order.
std::vector<std::pair<std::string, std::string>> recorded_properties() {
    const testing::TestResult& result = *testing::UnitTest::GetInstance()->current_test_info()->result();
    std::vector<std::pair<std::string, std::string>> recorded;
    for (int i = 0; i < result.test_property_count(); ++i) {
        recorded.emplace_back(result.GetTestProperty(i).key(), result.GetTestProperty(i).value());
    }
    return recorded;
}
}  // namespace

TEST(Reports, EachMeasureHintAndNoteIsAPropertyOfTheTestUnderANumberedKey) {
    using namespace streamlab::grading;
    testing::internal::CaptureStdout();
    report_measure("overlap", 0.5, ">=", 0.25, "ms");
    report_hint("wait first");
    report_hint("then record");
    report_note("your prediction", "A < B");
    const std::string printed = testing::internal::GetCapturedStdout();
    const std::vector<std::pair<std::string, std::string>> expected{
        {"streamlab.measure.1", R"({"name":"overlap","op":">=","threshold":0.25,"unit":"ms","value":0.5})"},
        {"streamlab.hint.1", "wait first"},
        {"streamlab.hint.2", "then record"},
        {"streamlab.note.1", R"({"name":"your prediction","text":"A < B"})"},
    };
    EXPECT_EQ(recorded_properties(), expected);
    EXPECT_NE(printed.find("STREAMLAB-HINT \"then record\""), std::string::npos) << "still printed: " << printed;
}
