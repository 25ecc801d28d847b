/// @file judging.hpp
/// @brief The base of a lab's judges: graded tests that read the lab's record
/// (record.hpp) and nothing else. A judge never links, loads or runs the
/// student's code and never touches a GPU; ctest runs the recording first (the
/// lab's `record` test, a fixture) and then every judge on its record.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "streamlab/device.hpp"
#include "streamlab/record.hpp"
#include "streamlab/record_consistency.hpp"

namespace streamlab::grading {

/// Whether `scenario`'s output, sampled in the record, equals the CPU reference
/// recomputed from the record's seed; the failure says where it does not, or
/// that the scenario sent no output.
[[nodiscard]] ::testing::AssertionResult output_matches_reference(const record::Scenario& scenario);

/// Expects what output_matches_reference checks; where the output is wrong, the
/// test fails with where, and the report carries `hint` (what the student should look at).
void expect_output_matches_reference(const record::Scenario& scenario, const std::string& hint);

/// A number of the record as the whole number a judge compares (record.hpp).
using record::whole_number;

/// The environment variable that names the record a judge reads (the lab's ctest tests set it).
inline constexpr const char* kRecordVariable = "STREAMLAB_RECORD";

/// Declares, once in a lab's test file, what every real run of the lab's recording program leaves
/// (record_consistency.hpp): RecordTest refuses a record that no such run could have written. Returns
/// true, for a constant at namespace scope:
/// `const bool kRunsDeclared = judge_records_of({{{"pipeline", kChunks}, {"chunks_1", 1}}});`
bool judge_records_of(const record::RecordedRuns& runs);

/// A lab's judges derive from it: SetUp reads and validates the record once per
/// process (a record that is missing, malformed or inconsistent, or that no real
/// run of the lab on a real GPU could have written, fails every test with the
/// reason), and skips the test, with the recording's reason, where the recording
/// found no GPU, or fewer than the lab needs at once.
class RecordTest : public ::testing::Test {
protected:
    /// Reads the record (once per process), fails or skips as the class says, and fills facts_.
    void SetUp() override;

    /// Points `scenario` at the recorded scenario `name`. Where it was not
    /// recorded, the test fails with the recording's own words (it failed,
    /// crashed, hung, or the run never reached it), or is skipped where the
    /// recording could not record it on this machine (tracer off or unavailable).
    /// `SL_STEP(use_scenario("pipeline", pipeline));`
    void use_scenario(const std::string& name, const record::Scenario*& scenario);

    /// A value of the set-up every scenario shared; fails the test when the record lacks it.
    [[nodiscard]] double setup_value(const std::string& key) const;

    /// The record being judged (valid after SetUp).
    [[nodiscard]] const record::Record& judged() const { return *record_; }

    DeviceFacts facts_;  ///< The device the recording ran on.

private:
    const record::Record* record_ = nullptr;
};

}  // namespace streamlab::grading
