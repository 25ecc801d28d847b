// The tracer's off switch (`--no-trace`, STREAMLAB_NO_TRACE) and the lab programs' options, without a GPU.
// Each test runs in its own process (ctest), so turning the tracer off in one
// does not reach the others.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "streamlab/lab_program.hpp"
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
    if (!tracing_off_reason().empty()) {
        GTEST_SKIP() << "started with STREAMLAB_NO_TRACE set";
    }
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

namespace {

/// Runs run_lab_program with `args` (after the program name); true when the body ran.
int run_program(std::vector<std::string> args, bool& body_ran) {
    args.insert(args.begin(), "lab_program_test");
    std::vector<char*> argv;
    for (std::string& arg : args) {
        argv.push_back(arg.data());
    }
    body_ran = false;
    return streamlab::run_lab_program(static_cast<int>(argv.size()), argv.data(), "Lab program test",
                                      [&](const streamlab::LabOptions&) {
                                          body_ran = true;
                                          return 0;
                                      });
}

TEST(LabProgramOptions, NoTraceAndTraceExcludeEachOther) {
    bool body_ran = true;
    EXPECT_EQ(run_program({"--no-trace", "--trace", "t.json"}, body_ran), 2);
    EXPECT_FALSE(body_ran);
}

TEST(LabProgramOptions, HelpNamesNoTrace) {
    bool body_ran = true;
    testing::internal::CaptureStdout();
    EXPECT_EQ(run_program({"--help"}, body_ran), 0);
    const std::string help = testing::internal::GetCapturedStdout();
    EXPECT_NE(help.find("--no-trace"), std::string::npos) << help;
    EXPECT_FALSE(body_ran);
}

TEST(LabProgramOptions, NoTraceTurnsTheTracerOffBeforeTheBodyRuns) {
    if (!streamlab::tracing_off_reason().empty()) {
        GTEST_SKIP() << "started with STREAMLAB_NO_TRACE set";
    }
    bool body_ran = false;
    const int status = run_program({"--no-trace"}, body_ran);
    EXPECT_NE(streamlab::tracing_off_reason().find("--no-trace"), std::string::npos);
    // Without a GPU the program stops with one line (status 1); with one, the body runs.
    EXPECT_EQ(status, body_ran ? 0 : 1);
}

}  // namespace
