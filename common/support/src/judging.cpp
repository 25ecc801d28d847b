#include "streamlab/judging.hpp"

#include <cstdlib>
#include <memory>
#include <optional>

#include "streamlab/grader_words.hpp"
#include "streamlab/testing.hpp"

namespace streamlab::grading {

namespace {

/// The lab's declaration of its real runs (judge_records_of), made before main by its test file.
std::optional<record::RecordedRuns>& declared_runs() {
    static std::optional<record::RecordedRuns> runs;
    return runs;
}

/// The record of this process's judges, read once; or why it cannot be judged.
struct LoadedRecord {
    std::unique_ptr<record::Record> record;
    std::string problem;
};

/// Why no real run of the lab could have written `record` (record_consistency.hpp), in the words of
/// a refusal; "" where it could. A record whose recording found no GPU is believed unless the harness read one.
std::string refusal_of_unreal(const record::Record& record, const std::string& path) {
    if (!record.gpu) {
        const std::string why = record::why_no_gpu_is_not_believed(record);
        return why.empty() ? "" : std::string(words::kFailRecordRefused) + path + ": " + why;
    }
    if (!declared_runs()) {
        return "the lab's judges declare no real runs to cross-check the record with (judge_records_of)";
    }
    const std::string why = record::why_not_a_real_run(record, *declared_runs());
    return why.empty() ? "" : std::string(words::kFailRecordRefused) + path + ": " + why;
}

const LoadedRecord& loaded_record() {
    static const LoadedRecord loaded = [] {
        LoadedRecord result;
        const char* path = std::getenv(kRecordVariable);
        if (path == nullptr || *path == '\0') {
            result.problem = std::string("no record to judge: ") + kRecordVariable +
                             " is not set (run the lab's tests with ctest, which records first)";
            return result;
        }
        try {
            result.record = std::make_unique<record::Record>(record::read_record(path));
        } catch (const record::RecordFormatError& error) {
            result.problem = std::string(words::kFailRecordRefused) + error.what();
            return result;
        }
        if (result.record->simulated && !record::kSimulatedBuild) {
            result.problem = std::string(words::kFailRecordRefused) + path +
                             ": it was recorded on the simulated GPU, a preview of what a GPU would show; "
                             "only a recording on a real GPU is graded";
            result.record.reset();
            return result;
        }
        result.problem = refusal_of_unreal(*result.record, path);
        if (!result.problem.empty()) {
            result.record.reset();
        }
        return result;
    }();
    return loaded;
}

/// Whether `message` is one of the skips the grader counts as "not graded"
/// (grader_words.hpp) that a recording can meet: no GPU, fewer GPUs than the
/// scenarios use at once, no timeline.
bool is_machine_skip(const std::string& message) {
    return message.rfind(words::kSkipNoGpu, 0) == 0 || message.rfind(words::kSkipNeedsGpus, 0) == 0 ||
           message.rfind(words::kSkipTimelineUnavailable, 0) == 0;
}

}  // namespace

bool judge_records_of(const record::RecordedRuns& runs) {
    declared_runs() = runs;
    return true;
}

void RecordTest::SetUp() {
    const LoadedRecord& loaded = loaded_record();
    if (!loaded.record) {
        GTEST_FAIL() << loaded.problem;
    }
    record_ = loaded.record.get();
    if (!record_->gpu && record_->no_gpu_reason.empty()) {
        GTEST_FAIL() << "the recording " << record_->ended;  // it stopped before its set-up
    }
    if (!record_->gpu) {
        if (!is_machine_skip(record_->no_gpu_reason)) {
            GTEST_FAIL() << "the recording found no GPU, for a reason the course does not give: "
                         << record_->no_gpu_reason;
        }
        GTEST_SKIP() << record_->no_gpu_reason;
    }
    if (record_->device.copy_engines < 1) {  // no GPU the course grades on; the course's model needs one
        GTEST_FAIL() << words::kFailRecordRefused << std::getenv(kRecordVariable) << ": its GPU ("
                     << record_->device.name << ") has " << record_->device.copy_engines
                     << " copy engines, and the course's model of a pipeline needs at least one";
    }
    facts_ = record_->device;
}

void RecordTest::use_scenario(const std::string& name, const record::Scenario*& scenario) {
    scenario = record_->find(name);
    if (scenario == nullptr) {
        GTEST_FAIL() << "scenario " << name << " was not recorded: the recording " << record_->ended;
    }
    switch (scenario->outcome) {
        case record::Outcome::Recorded:
            return;
        case record::Outcome::Skipped:
            if (is_machine_skip(scenario->message)) {
                GTEST_SKIP() << scenario->message;
            }
            GTEST_FAIL() << "scenario " << name
                         << " was skipped for a reason the course does not give: " << scenario->message;
        case record::Outcome::Failed:
            GTEST_FAIL() << "scenario " << name << " failed: " << scenario->message;
        case record::Outcome::Crashed:
        case record::Outcome::Hung:
            GTEST_FAIL() << "scenario " << name << " " << record::to_string(scenario->outcome) << ": "
                         << scenario->message;
    }
}

::testing::AssertionResult output_matches_reference(const record::Scenario& scenario) {
    if (!scenario.output) {
        return ::testing::AssertionFailure() << "the record has no output of scenario " << scenario.name;
    }
    const ResultCheck check = record::check_output_sample(*scenario.output);
    if (!check.ok) {
        return ::testing::AssertionFailure() << check.message();
    }
    return ::testing::AssertionSuccess() << check.message();
}

void expect_output_matches_reference(const record::Scenario& scenario, const std::string& hint) {
    const ::testing::AssertionResult matches = output_matches_reference(scenario);
    if (!matches) {
        report_hint(hint);
    }
    EXPECT_TRUE(matches);
}

double RecordTest::setup_value(const std::string& key) const {
    const auto found = record_->setup.find(key);
    if (found == record_->setup.end()) {
        ADD_FAILURE() << "the record's set-up has no value \"" << key << "\"";
        return 0;
    }
    return found->second;
}

}  // namespace streamlab::grading
