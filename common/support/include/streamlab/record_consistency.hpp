/// @file record_consistency.hpp
/// @brief What a real run on a real GPU makes consistent in a record, checked: the judges refuse a
/// record that breaks any of it (judging.hpp), whatever its verdicts would have been.
///
/// A record is written beside the student's code, so a dishonest run could write any record it likes.
/// To be believed it must agree with what the course knows without it:
///  - each output sample is of the run the lab's recording program makes (its elements, kernel
///    iterations and chunks come from the set-up and the scenario, not from the sample);
///  - the runtime calls agree with the ops (every op was made by a call, in a stream of the kind that
///    call named, after it was made) and with the counts of calls;
///  - no copy beats the fastest link this kind of GPU has, and no kernel does its work faster than
///    the set-up calibrated (or than this kind of GPU can);
///  - what the harness saw itself (how each start of the program ended, each scenario's wall time, the
///    GPUs' names) and what it chose (the job salt every element count follows) agree with the rest (a
///    simulated record's times are its model's, so its wall times are not compared; only the simulated
///    build's judges judge such a record at all).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "streamlab/record.hpp"

namespace streamlab::record {

/// How many elements a real run's output sample covers: `times` times a value of the set-up (four
/// streams of "n" elements each, say) or, where the set-up names none, `times` times the lab's own count `usual`,
/// bound to the run's job salt where `salted` (Session::salted_elements; the usual count in a record
/// made before the salt).
struct ElementCount {
    std::string setup_key = "n";  ///< The set-up value; empty where the count is the lab's own.
    std::uint64_t usual = 0;      ///< The lab's own count, where `setup_key` is empty.
    bool salted = false;          ///< `usual` is bound to the job salt (record::salted_elements).
    std::uint64_t times = 1;      ///< How many of them.
};

/// `times` times the set-up value `key`.
[[nodiscard]] ElementCount setup_elements(const std::string& key, std::uint64_t times = 1);
/// `times` times a count the lab fixes itself (its set-up names none), bound to the job salt or not.
[[nodiscard]] ElementCount fixed_elements(std::uint64_t usual, bool salted, std::uint64_t times = 1);

/// Where a real run's kernel iterations come from: a value of the set-up, or, where each scenario
/// calibrates its own kernel, a value of the scenario itself.
struct IterationCount {
    std::string key = "iterations";  ///< The value's name.
    bool of_scenario = false;        ///< The scenario's value, not the set-up's.
};

/// The scenario's own value `key`.
[[nodiscard]] IterationCount scenario_iterations(const std::string& key);

/// An output sample every real run leaves in one scenario, and of what run.
struct ExpectedSample {
    std::string scenario;         ///< The scenario's name.
    int chunks = 1;               ///< The chunks the run was split into (OutputSample::chunks).
    ElementCount n{};             ///< Its elements (OutputSample::n).
    IterationCount iterations{};  ///< Its kernel's iterations (OutputSample::iterations).
};

/// What a lab's judges know of every real run of its recording program, declared once in its test file
/// (grading::judge_records_of): every scenario that must carry an output sample when it was recorded,
/// and of what run. (Every set-up's "n" is bound to the run's job salt: Session::salted_elements.)
struct RecordedRuns {
    std::vector<ExpectedSample> samples;  ///< In any order.
};

/// Why no real run of the lab on a real GPU could have written `record`, in one sentence that names
/// what was found, or "" where everything the course can cross-check agrees. `record` holds a usable GPU.
[[nodiscard]] std::string why_not_a_real_run(const Record& record, const RecordedRuns& runs);

/// Why a record that says its recording found no GPU is not believed: the harness, which the student's
/// code never runs in, read GPUs on this machine that the recording was free to use (record_harness.cpp
/// lists none where CUDA_VISIBLE_DEVICES hid them all). "" where it is, or where `record` holds a GPU.
[[nodiscard]] std::string why_no_gpu_is_not_believed(const Record& record);

}  // namespace streamlab::record
