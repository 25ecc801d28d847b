// The streamlab_analyze command: what the Python tools call to cross-check their analysis.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "streamlab/analysis.hpp"
#include "streamlab/model.hpp"
#include "streamlab/trace_file.hpp"

namespace {

struct CommandResult {
    int exit_code = -1;
    std::string output;
};

// Runs the command with `arguments` (already shell-quoted), capturing stdout, or
// stderr when `capture_stderr` (then stdout is discarded).
CommandResult run_analyze(const std::string& arguments, bool capture_stderr = false) {
    std::string command = std::string("'") + STREAMLAB_ANALYZE_EXE + "' " + arguments;
    command += capture_stderr ? " 2>&1 >/dev/null" : " 2>/dev/null";
    CommandResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return result;
    }
    std::array<char, 4096> buffer{};
    std::size_t count = 0;
    while ((count = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
        result.output.append(buffer.data(), count);
    }
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

std::string fixture(const std::string& name) {
    return std::string(STREAMLAB_FIXTURES) + "/" + name;
}

TEST(AnalyzeCommand, PrintsTheSummaryOfATrace) {
    const CommandResult result = run_analyze("'" + fixture("three_chunk_pipeline.json") + "'");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const nlohmann::json printed = nlohmann::json::parse(result.output);
    const nlohmann::json expected = nlohmann::json::parse(streamlab::summary_to_json(
        streamlab::summarize(streamlab::read_trace(fixture("three_chunk_pipeline.json")).ops)));
    EXPECT_EQ(printed, expected);
    EXPECT_EQ(printed["op_count"], 9);
}

TEST(AnalyzeCommand, BrokenOrMissingTraceGivesOneLineAndExitTwo) {
    for (const char* name : {"bandwidth_sweep.json", "no-such-trace.json"}) {
        const CommandResult result = run_analyze("'" + fixture(name) + "'", true);
        EXPECT_EQ(result.exit_code, 2) << name;
        EXPECT_EQ(result.output.rfind("streamlab_analyze: ", 0), 0U) << result.output;
        ASSERT_FALSE(result.output.empty());
        EXPECT_EQ(result.output.find('\n'), result.output.size() - 1) << "not one line: " << result.output;
    }
}

TEST(AnalyzeCommand, PrintsThePipelineModel) {
    const CommandResult result = run_analyze("--model 6 2 5 4 1");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const nlohmann::json printed = nlohmann::json::parse(result.output);
    const streamlab::PipelineEstimate estimate = streamlab::pipeline_model({6, 2, 5}, 4, 1);
    EXPECT_DOUBLE_EQ(printed["serial"].get<double>(), estimate.serial);
    EXPECT_DOUBLE_EQ(printed["ideal"].get<double>(), estimate.ideal);
    EXPECT_DOUBLE_EQ(printed["bound"].get<double>(), estimate.bound);
    EXPECT_DOUBLE_EQ(printed["speedup"].get<double>(), estimate.speedup);
    EXPECT_EQ(printed.size(), 4U);
}

TEST(AnalyzeCommand, BadArgumentsGiveExitTwo) {
    EXPECT_EQ(run_analyze("").exit_code, 2);
    EXPECT_EQ(run_analyze("--model 1 2 3").exit_code, 2);
    EXPECT_EQ(run_analyze("--model 1 2 x 3 2").exit_code, 2);
    EXPECT_EQ(run_analyze("--model 1 2 3 0 2").exit_code, 2);  // zero chunks
    EXPECT_EQ(run_analyze("--model 1 2 3 2.5 2").exit_code, 2);
    EXPECT_EQ(run_analyze("--help").exit_code, 0);
}

}  // namespace
