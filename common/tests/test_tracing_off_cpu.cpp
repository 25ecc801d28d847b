// The tracer's off switch (`--no-trace`, STREAMLAB_NO_TRACE) without a GPU.
// Each test runs in its own process (ctest), so turning the tracer off in one
// does not reach the others.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "streamlab/tracer.hpp"
#include "tracing_switch.hpp"

namespace {

using namespace streamlab;

TEST(TracingOff, StartEnvironmentIsWhatTheProcessStartedWith) {
    const char* path = std::getenv("PATH");
    ASSERT_NE(path, nullptr);
    EXPECT_EQ(detail::start_environment("PATH"), path);
    // What the program sets later cannot turn the tracer off: only its start does.
    ASSERT_EQ(setenv("STREAMLAB_TRACING_OFF_TEST", "1", 1), 0);
    EXPECT_EQ(detail::start_environment("STREAMLAB_TRACING_OFF_TEST"), "");
    EXPECT_EQ(detail::start_environment("STREAMLAB_NO_SUCH_VARIABLE"), "");
}

TEST(TracingOff, NoTraceTurnsTheTracerOffWithTheReason) {
    if (!tracing_off_reason().empty()) GTEST_SKIP() << "started with STREAMLAB_NO_TRACE set";
    detail::turn_tracing_off("--no-trace");
    const std::string reason = tracing_off_reason();
    EXPECT_NE(reason.find("--no-trace"), std::string::npos) << reason;
    EXPECT_NE(reason.find("compute-sanitizer"), std::string::npos) << reason;
    // A Tracer refuses before it asks for a GPU or touches CUPTI.
    try {
        Tracer tracer("off");
        ADD_FAILURE() << "a Tracer was made while the tracer is off";
    } catch (const TimelineUnavailable& unavailable) {
        EXPECT_NE(std::string(unavailable.what()).find("--no-trace"), std::string::npos) << unavailable.what();
    }
}

TEST(TracingOff, ATimelineKnowsWhetherItWasRecorded) {
    Timeline recorded;
    EXPECT_TRUE(recorded.recorded());
    Timeline unrecorded;
    unrecorded.not_recorded = "the tracer is off (--no-trace)";
    EXPECT_FALSE(unrecorded.recorded());
}

}  // namespace
