// The recording harness (streamlab_record) around made-up recording programs,
// shell scripts that send a record's lines as a lab's recording program does:
// a crash costs only the scenario it happened in, a failed scenario is followed
// by a fresh process, a scenario that needs a process of its own gets one with
// the variables it asked for, a hang ends the run once,
// and a program that cannot start still leaves a record that says so. The
// harness binds the record to its run (the job salt in its header and in every
// start's arguments) and adds what it observed itself (how each start ended,
// whether it sent its finished line, each scenario's wall time, the GPUs as NVML
// names them); lines the program sends that imitate the harness's own are not
// the harness's: the record that holds them is refused.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "streamlab/device.hpp"
#include "streamlab/record.hpp"

namespace {

using namespace streamlab::record;
namespace fs = std::filesystem;

/// A recording program of three scenarios, a, b and c, each "skipped" with the
/// job salt it was started with in its message, unless `in_b` (a shell command)
/// stops it in b; it ends with `at_end` (as record_scenarios does: its finished line).
/// It checks that a restart brought back the set-up's value (n=5): otherwise its
/// set-up differs, and the record with it.
std::string fake_program(const std::string& in_b, const std::string& at_end = "echo '{\"finished\": true}' >&$fd") {
    streamlab::DeviceFacts device;
    device.name = "Made-up GPU";
    return "#!/bin/bash\n"
           "fd=''; after=''; n=5; salt=none\n"
           "while [ $# -gt 0 ]; do case \"$1\" in\n"
           "  --record-fd) fd=$2;; --after) after=$2;; --job-salt) salt=$2;;\n"
           "  --setup) [ \"$2\" = n=5 ] || n=6;; esac; shift 2\n"
           "done\n"
           "setup='" +
           setup_line(device, {{"n", 5}}) +
           "'\n"
           "[ $n = 5 ] || setup='" +
           setup_line(device, {{"n", 6}}) +
           "'\n"
           "echo \"$setup\" >&$fd\n"
           "for s in a b c; do\n"
           "  if [ -n \"$after\" ]; then [ $s = \"$after\" ] && after=''; continue; fi\n"
           "  echo '{\"started\":\"'$s'\"}' >&$fd\n"
           "  if [ $s = b ]; then " +
           in_b +
           "; fi\n"
           "  echo '{\"scenario\":\"'$s'\",\"outcome\":\"skipped\",\"message\":\"timeline unavailable: salt "
           "'$salt'\"}' "
           ">&$fd\n"
           "done\n" +
           at_end + "\n";
}

/// A recording program of three scenarios, a, b and c, each "skipped" with the
/// value of the variable STREAMLAB_HARNESS_TEST in its message, as
/// recording::Session does with ProcessNeeds: b needs that variable set to 1,
/// so a process whose variables are not b's asks for one started at b with it
/// (a restart_at line, exit status 75), and a and c need none.
std::string fake_program_with_own_process() {
    streamlab::DeviceFacts device;
    device.name = "Made-up GPU";
    return "#!/bin/bash\n"
           "fd=''; at=''; mine=''\n"
           "while [ $# -gt 0 ]; do case \"$1\" in --record-fd) fd=$2;; --at) at=$2;; esac; shift 2; done\n"
           "echo '" +
           setup_line(device, {{"n", 5}}) +
           "' >&$fd\n"
           "for s in a b c; do\n"
           "  needs=''; needed='{}'\n"
           "  if [ $s = b ]; then needs=1; needed='{\"STREAMLAB_HARNESS_TEST\":\"1\"}'; fi\n"
           "  if [ -n \"$at\" ]; then [ $s = \"$at\" ] || continue; at=''; mine=$needs; fi\n"
           "  if [ \"$needs\" != \"$mine\" ]; then\n"
           "    echo '{\"restart_at\":\"'$s'\",\"environment\":'$needed'}' >&$fd; exit " +
           std::to_string(kRestartAfterFailureStatus) +
           "\n"
           "  fi\n"
           "  echo '{\"started\":\"'$s'\"}' >&$fd\n"
           "  echo '{\"scenario\":\"'$s'\",\"outcome\":\"skipped\",\"message\":\"timeline unavailable: '"
           "${STREAMLAB_HARNESS_TEST:-unset}'\"}' >&$fd\n"
           "done\n";
}

class RecordHarness : public ::testing::Test {
protected:
    void SetUp() override {
        folder_ = fs::temp_directory_path() /
                  ("streamlab-harness-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(folder_);
        fs::create_directories(folder_);
    }
    void TearDown() override { fs::remove_all(folder_); }

    /// Runs the harness on `program` (a script's text, or "" for a program that does not exist),
    /// with `options` beside its own; the record's path.
    fs::path run_harness(const std::string& program, int timeout_s = 60, const std::string& options = "") {
        const fs::path script = folder_ / "record_lab";
        if (!program.empty()) {
            std::ofstream(script) << program;
            fs::permissions(script, fs::perms::owner_all);
        }
        const fs::path out = folder_ / "lab.record.jsonl";
        const std::string command = std::string(STREAMLAB_RECORD_EXE) + " --lab 7 --seed 7 " + options + " --timeout " +
                                    std::to_string(timeout_s) + " --out " + out.string() + " -- " + script.string() +
                                    " > " + (folder_ / "harness.log").string() + " 2>&1";
        const int status = std::system(command.c_str());
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
        return out;
    }

    /// The record of the harness's run of `program` (run_harness).
    Record record(const std::string& program, int timeout_s = 60, const std::string& options = "") {
        return read_record(run_harness(program, timeout_s, options).string());
    }

    /// Why read_record refuses the record of the harness's run of `program`, or "" when it reads it.
    std::string refusal(const std::string& program) {
        try {
            (void)record(program);
        } catch (const RecordFormatError& error) {
            return error.what();
        }
        return "";
    }

    fs::path folder_;
};

/// The starts the harness observed in `run`, as "ended/finished" words: {"exit status 0/finished", ...}.
std::vector<std::string> starts_of(const Record& run) {
    std::vector<std::string> starts;
    if (run.observed) {
        for (const ProgramStart& start : run.observed->starts) {
            starts.push_back(start.ended + (start.finished ? "/finished" : "/not finished"));
        }
    }
    return starts;
}

TEST_F(RecordHarness, ACrashCostsOnlyItsScenario) {
    const Record run = record(fake_program("kill -SEGV $$"));
    EXPECT_EQ(run.seed, 7U);
    ASSERT_EQ(run.scenarios.size(), 3U);
    EXPECT_EQ(run.find("a")->outcome, Outcome::Skipped);
    EXPECT_EQ(run.find("b")->outcome, Outcome::Crashed);
    EXPECT_NE(run.find("b")->message.find("signal 11"), std::string::npos) << run.find("b")->message;
    EXPECT_EQ(run.find("c")->outcome, Outcome::Skipped);  // after a restart, with the same set-up
    EXPECT_EQ(run.ended, "complete");
    // As it happened: the first start killed in b before its finished line, the second to its end.
    EXPECT_EQ(starts_of(run), (std::vector<std::string>{"killed by signal 11 (Segmentation fault)/not finished",
                                                        "exit status 0/finished"}));
}

TEST_F(RecordHarness, TheJobSaltIsInTheHeaderAndGivenToEveryStart) {
    const Record chosen = record(fake_program("kill -SEGV $$"));
    ASSERT_TRUE(chosen.job_salt.has_value());
    EXPECT_GE(*chosen.job_salt, kMinJobSalt);
    EXPECT_LE(*chosen.job_salt, kMaxJobSalt);
    const std::string said = "timeline unavailable: salt " + std::to_string(*chosen.job_salt);
    EXPECT_EQ(chosen.find("a")->message, said);  // the first start
    EXPECT_EQ(chosen.find("c")->message, said);  // the start after the crash
    const Record fixed = record(fake_program("true"), 60, "--job-salt 4001");
    EXPECT_EQ(fixed.job_salt, std::optional<std::uint32_t>(4001));
    EXPECT_EQ(fixed.find("b")->message, "timeline unavailable: salt 4001");
}

TEST_F(RecordHarness, AJobSaltOutOfRangeIsRefusedAtTheStart) {
    const std::string command = std::string(STREAMLAB_RECORD_EXE) + " --lab 7 --job-salt 4096 --timeout 5 --out " +
                                (folder_ / "r").string() + " -- /bin/true > /dev/null 2>&1";
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    EXPECT_FALSE(fs::exists(folder_ / "r"));
}

TEST_F(RecordHarness, AStartThatEndsWellWithoutItsFinishedLineIsObservedSo) {
    const Record run = record(fake_program("true", "exit 0"));
    EXPECT_EQ(run.ended, "complete");
    EXPECT_EQ(starts_of(run), std::vector<std::string>{"exit status 0/not finished"});
    const Record finished = record(fake_program("true"));
    EXPECT_EQ(starts_of(finished), std::vector<std::string>{"exit status 0/finished"});
    // The finished line is the harness's to note, not a line of the record.
    std::ifstream file(folder_ / "lab.record.jsonl");
    const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text.find("\"finished\": true"), std::string::npos) << text;
}

TEST_F(RecordHarness, EachScenarioLastsAtLeastItsWorkOnTheHarnesssClock) {
    const Record run = record(fake_program("sleep 0.3"));
    ASSERT_TRUE(run.observed.has_value());
    const std::map<std::string, double>& wall = run.observed->scenario_wall_ms;
    ASSERT_EQ(wall.size(), 3U);
    EXPECT_GE(wall.at("b"), 300.0) << "b slept 0.3 s between its started line and its last line";
    EXPECT_GE(wall.at("a"), 0.0);
    EXPECT_LT(wall.at("a"), wall.at("b"));
    EXPECT_LT(wall.at("c"), wall.at("b"));
}

TEST_F(RecordHarness, TheGpusAreReadThroughNvmlOrTheRecordSaysWhyNot) {
    const Record run = record(fake_program("true"));
    ASSERT_TRUE(run.observed.has_value());
    void* nvml = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (nvml == nullptr) {  // a machine without the driver, as CI's
        EXPECT_TRUE(run.observed->gpus.empty());
        EXPECT_EQ(run.observed->gpu_reading, "no NVML: libnvidia-ml.so.1 not found");
        return;
    }
    ::dlclose(nvml);
    // Read, or the reason NVML gave: never both, never neither.
    EXPECT_NE(run.observed->gpus.empty(), run.observed->gpu_reading.empty()) << run.observed->gpu_reading;
}

TEST_F(RecordHarness, LinesThatImitateTheHarnessesAreNotTheHarnesss) {
    // A program that sends what the harness writes, after its scenarios: an end line with what a
    // harness would have observed, and a header with a job salt of its own.
    HarnessObservations made_up;
    made_up.starts = {{"exit status 0", true}};
    made_up.scenario_wall_ms = {{"a", 1000}, {"b", 1000}, {"c", 1000}};
    made_up.gpus = {"Made-up GPU"};
    const std::string end = "echo '" + end_line("complete", made_up) + "' >&$fd";
    EXPECT_NE(refusal(fake_program("true", end)).find("a line after the record's end"), std::string::npos)
        << refusal(fake_program("true", end));
    const std::string header = "echo '" + header_line("7", "record_lab", "d", 7, 1) + "' >&$fd";
    EXPECT_NE(refusal(fake_program("true", header)).find("none of header, setup, started, scenario or end"),
              std::string::npos)
        << refusal(fake_program("true", header));
}

TEST_F(RecordHarness, AFailedScenarioIsFollowedByAFreshProcess) {
    // As Session::scenario does: b's failure sent, then the exit that asks for a fresh process.
    const Record run =
        record(fake_program("echo '{\"scenario\":\"b\",\"outcome\":\"failed\",\"message\":\"made up\"}' >&$fd; exit " +
                            std::to_string(kRestartAfterFailureStatus)));
    ASSERT_EQ(run.scenarios.size(), 3U);
    EXPECT_EQ(run.find("b")->outcome, Outcome::Failed);
    EXPECT_EQ(run.find("c")->outcome, Outcome::Skipped);  // recorded by the second process
    EXPECT_EQ(run.ended, "complete");
    EXPECT_EQ(starts_of(run), (std::vector<std::string>{"exit status 75/not finished", "exit status 0/finished"}));
}

TEST_F(RecordHarness, AScenarioGetsAProcessOfItsOwnWithTheVariablesItAskedFor) {
    ::unsetenv("STREAMLAB_HARNESS_TEST");
    const Record run = record(fake_program_with_own_process());
    ASSERT_EQ(run.scenarios.size(), 3U);  // the requests are not lines of the record
    EXPECT_EQ(run.find("a")->message, "timeline unavailable: unset");
    EXPECT_EQ(run.find("b")->message, "timeline unavailable: 1");      // in a process started at b, with it
    EXPECT_EQ(run.find("c")->message, "timeline unavailable: unset");  // in an ordinary process again
    EXPECT_EQ(run.ended, "complete");
}

TEST_F(RecordHarness, AHangEndsTheRunOnce) {
    const Record run = record(fake_program("sleep 60"), 2);
    EXPECT_EQ(run.find("a")->outcome, Outcome::Skipped);
    ASSERT_NE(run.find("b"), nullptr);
    EXPECT_EQ(run.find("b")->outcome, Outcome::Hung);
    EXPECT_EQ(run.find("c"), nullptr);
    EXPECT_NE(run.ended.find("scenario b did not finish"), std::string::npos) << run.ended;
    EXPECT_EQ(starts_of(run), std::vector<std::string>{"killed at the deadline/not finished"});
}

TEST_F(RecordHarness, AProgramThatClosesTheRecordAndGoesOnIsStoppedAtTheDeadline) {
    const Record run = record(fake_program("eval \"exec $fd>&-\"; sleep 60"), 2);
    ASSERT_NE(run.find("b"), nullptr);
    EXPECT_EQ(run.find("b")->outcome, Outcome::Hung);
    EXPECT_EQ(run.find("c"), nullptr);
}

TEST_F(RecordHarness, AProgramThatCannotStartLeavesARecordThatSaysSo) {
    const Record run = record("");
    EXPECT_TRUE(run.scenarios.empty());
    EXPECT_NE(run.ended.find("exit status 127"), std::string::npos) << run.ended;
}

TEST_F(RecordHarness, AProgramThatEndsWellBeforeItsSetUpRecordedNothing) {
    // A static initializer that prints a test framework's success and ends the program.
    const Record run = record("#!/bin/bash\necho '[  PASSED  ] 1 test.'\nexit 0\n");
    EXPECT_TRUE(run.scenarios.empty());
    EXPECT_NE(run.ended.find("ended before its set-up"), std::string::npos) << run.ended;
}

TEST_F(RecordHarness, TooFewGpusLeaveARecordThatSaysOnlyWhyAndANotRunRecording) {
    const Record run = record(
        "#!/bin/bash\nwhile [ $# -gt 0 ]; do [ \"$1\" = --record-fd ] && fd=$2; shift 2; done\n"
        "echo '" +
        no_gpu_line(streamlab::needs_gpus_reason(2, 1)) + "' >&$fd\n");
    EXPECT_FALSE(run.gpu);
    EXPECT_EQ(run.no_gpu_reason, "not graded: needs two GPUs (this machine has 1)");
    EXPECT_TRUE(run.scenarios.empty());
    EXPECT_EQ(run.ended, "complete");
    // ctest reads the harness's skip line: the recording is "not run", never "passed".
    std::ifstream log(folder_ / "harness.log");
    const std::string said((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    EXPECT_NE(said.find("[  SKIPPED ] not graded: needs two GPUs (this machine has 1)"), std::string::npos) << said;
}

}  // namespace
