/// @file record.hpp
/// @brief A lab's record: everything one recording run of a student's code left
/// for the judges, and the only thing they read (common/RECORD_FORMAT.md).
///
/// A recording program runs a lab's scenarios (the serial reference, the
/// pipeline while CUPTI records, ...) one after another and writes one JSON line
/// per step to the course's recording harness (`streamlab_record`), which adds
/// what it observed itself (a crash, a hang) and writes the record file. The
/// judges, which never load the student's code, read it back with read_record,
/// which refuses a file that is malformed or inconsistent, saying why.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "streamlab/timeline.hpp"
#include "streamlab/workload.hpp"

namespace streamlab::record {

/// A number of a record (which may hold anything a forged record holds: negative, huge, NaN, and NaN
/// where a student's function returned one) as the whole number of type `T` that a judge compares:
/// clamped to [low, high], NaN read as `low`. A plain cast of such a double to an integer is undefined
/// behaviour. `whole_number<int>(scenario->value("chunk"), -1, 1e9)`
template <typename T>
[[nodiscard]] T whole_number(double value, double low, double high) {
    return static_cast<T>(std::isnan(value) ? low : std::clamp(value, low, high));
}

/// The `format` value every record carries; readers refuse other files.
inline constexpr const char* kRecordFormatName = "streamlab-record";
/// The record format's version, which readers require.
inline constexpr int kRecordVersion = 1;

/// The host mark a recording program makes after a scenario's work and a device
/// synchronization: every op of the scenario ends before it (read_record checks).
inline constexpr const char* kRecordingEndsMark = "recording ends";

/// The exit status with which a recording program, right after sending the
/// line of a scenario that failed, asks the harness to go on in a fresh process:
/// what failed (a CUDA error, a stream capture left open) may have left the
/// process's GPU state unusable for the scenarios after it. The same status ends
/// a process after a scenario that leaves it unusable on purpose, and after a
/// restart_at_line (a scenario that needs a process of its own).
inline constexpr int kRestartAfterFailureStatus = 75;

/// A record that cannot be judged: unreadable, malformed or inconsistent.
/// The message says where and why, in one sentence.
class RecordFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// How one scenario's recording ended.
enum class Outcome {
    Recorded,  ///< It ran to its end: its timeline and values are in the record.
    Skipped,   ///< It could not be recorded on this machine (no GPU, no tracer): `message` says why.
    Failed,    ///< It threw (a CUDA error, say): `message` is what was thrown.
    Crashed,   ///< The recording process died in it (the harness saw how).
    Hung,      ///< It did not end before the harness's deadline.
};

/// The spelling of `outcome` in a record ("recorded", "skipped", ...).
[[nodiscard]] const char* to_string(Outcome outcome);

/// Output elements of a run, sampled: enough for a judge to recompute each one
/// from the seed (input_element, workload_reference) without the arrays.
struct OutputSample {
    std::uint64_t n = 0;               ///< Elements of the run.
    int iterations = 1;                ///< Workload iterations of the run.
    int chunks = 1;                    ///< Chunks the run split the data into.
    std::uint32_t seed = 0;            ///< The input's seed (fill_input).
    std::vector<std::uint64_t> index;  ///< Sampled elements, sample_indices(n, chunks, seed).
    std::vector<float> value;          ///< What the run wrote there.
};

/// The elements an OutputSample holds: about 2048 spread over the array from an
/// offset the seed picks, the first and last element of each of `chunks` nearly
/// equal chunks (so a chunk never copied is always seen), and the last element;
/// sorted, no repeats. The recorder samples these and a judge requires exactly these.
[[nodiscard]] std::vector<std::uint64_t> sample_indices(std::uint64_t n, int chunks, std::uint32_t seed);

/// The sample of `out` (a run of `n` elements, `iterations`, `chunks`, input from `seed`) a recording sends.
[[nodiscard]] OutputSample sample_output(const float* out, std::uint64_t n, int iterations, int chunks,
                                         std::uint32_t seed);

/// Compares a sample with the CPU reference, recomputed from its seed. A sample
/// whose indices are not sample_indices(n, chunks, seed) fails.
[[nodiscard]] ResultCheck check_output_sample(const OutputSample& sample);

/// One scenario of a recording run.
struct Scenario {
    std::string name;                     ///< The lab's name for it ("pipeline", ...).
    Outcome outcome = Outcome::Recorded;  ///< How it ended.
    std::string message;                  ///< Why it was not recorded (empty when it was).
    std::optional<Timeline> timeline;     ///< What the GPU did, with the runtime calls that ordered it.
    /// What the course measured, and what the student's code returned (NaN where
    /// that was not a finite number: null in the file).
    std::map<std::string, double> values;
    std::optional<OutputSample> output;  ///< The run's output, sampled.

    /// The value `key`; throws RecordFormatError naming the scenario when the record lacks it.
    [[nodiscard]] double value(const std::string& key) const;
};

/// The smallest job salt (Record::job_salt): every element count "n" of a recording has
/// n % kJobSaltModulus == job_salt, so that no two runs' byte counts need be alike.
inline constexpr std::uint32_t kMinJobSalt = 1;
/// The largest job salt: one less than kJobSaltModulus.
inline constexpr std::uint32_t kMaxJobSalt = 4095;
/// The modulus of the job salt: every "n" of a recording is a multiple of it plus the salt.
inline constexpr std::uint64_t kJobSaltModulus = 4096;

/// The element count of a run whose usual size is `usual` (at least 2 * kJobSaltModulus), bound to the
/// run's job salt: `usual` rounded down to a multiple of kJobSaltModulus, less kJobSaltModulus, plus
/// `job_salt`, so that n % kJobSaltModulus == job_salt and n < usual (the device's memory still holds it).
/// `usual` itself where there is no salt (a record made before it). The recording programs size their
/// data with it, and a judge recomputes it from the record's job_salt.
[[nodiscard]] std::uint64_t salted_elements(std::uint64_t usual, std::optional<std::uint32_t> job_salt);

/// One start of the recording program, as the harness saw it end.
struct ProgramStart {
    /// How it ended, in the harness's words: "exit status 0", "exit status 75",
    /// "killed by signal 11 (Segmentation fault)", "killed at the deadline".
    std::string ended;
    /// Whether the program sent its finished line ({"finished": true}, sent by
    /// record_scenarios just before its main returns 0) before it ended.
    bool finished = false;
};

/// What the harness saw itself, outside the process that runs the student's code:
/// the end line's "observed" (common/RECORD_FORMAT.md).
struct HarnessObservations {
    std::vector<ProgramStart> starts;  ///< One per start of the recording program, in order.
    /// Per scenario, from the harness receiving its "started" line to receiving its
    /// last line, on the harness's steady clock, in milliseconds.
    std::map<std::string, double> scenario_wall_ms;
    std::vector<std::string> gpus;  ///< The GPUs' names as the harness read them (NVML); empty where it could not.
    std::string gpu_reading;        ///< Why the harness could not read them; empty when it could.
};

/// Whether this is the simulated GPU's build (CMake option STREAMLAB_SIMULATED_GPU): its harness marks
/// every record "simulated", and its judges are the only ones that judge such a record (as a preview,
/// never a grade); the judges of a build for real GPUs refuse it.
#ifdef STREAMLAB_SIMULATED_GPU
inline constexpr bool kSimulatedBuild = true;
#else
inline constexpr bool kSimulatedBuild = false;
#endif

/// A whole record.
struct Record {
    std::string lab;         ///< "05".
    std::string program;     ///< The recording program.
    std::string date;        ///< When the harness started, UTC ISO 8601.
    std::uint32_t seed = 0;  ///< The input's seed, chosen by the harness.
    DeviceFacts device;      ///< The GPU the recording ran on (from its set-up): GPU 0.
    /// Every GPU the recording used, by device ordinal: `device` first, then, for a
    /// recording on several GPUs at once, GPU 1, 2, ... (the set-up's `more_gpus`).
    std::vector<DeviceFacts> gpus;
    bool gpu = false;                     ///< False when the recording found no usable GPU, or fewer than it needs.
    std::string no_gpu_reason;            ///< Why, when `gpu` is false.
    std::map<std::string, double> setup;  ///< The set-up's values (element count, iterations, ...).
    std::vector<Scenario> scenarios;      ///< In the order they were recorded.
    std::string ended;                    ///< How the harness ended the run, in words ("complete", ...).
    /// The job salt the harness chose (kMinJobSalt to kMaxJobSalt): every element count "n" of the
    /// run is n % kJobSaltModulus == job_salt. Absent in records made before it.
    std::optional<std::uint32_t> job_salt;
    /// What the harness observed itself (the end line's "observed"). Absent in records made before it.
    std::optional<HarnessObservations> observed;
    /// Recorded on the simulated GPU (the header's "simulated", which the harness of the simulated build
    /// writes): a preview of what a GPU would show, which the judges of a real build refuse to grade.
    bool simulated = false;

    /// The scenario named `name`, or nullptr when the run never reached it.
    [[nodiscard]] const Scenario* find(const std::string& name) const;
};

/// The timeline of a scenario run with no tracer (recording::Session::run_untraced):
/// no ops and no calls, only the kRecordingEndsMark, on `device`, named `program`.
[[nodiscard]] Timeline untraced_timeline(const DeviceFacts& device, const std::string& program);

/// Takes the runtime calls the recording program made itself on host thread
/// `thread`, after a scenario's work and before its kRecordingEndsMark (the
/// synchronization of recording::Session::record), out of `timeline`: `calls`
/// (how many of each runtime function, "cudaDeviceSynchronize": 1) fewer in
/// `api_calls` and in that thread's count of `api_calls_by_thread` (where calls
/// were counted by thread), and the stream call of each of its
/// cudaDeviceSynchronize (the last device synchronizations) gone from
/// `stream_calls`, so that all three hold the calls of the scenario's code alone.
/// Calls the timeline does not hold are not taken out.
void discount_course_calls(Timeline& timeline, std::uint64_t thread, const std::map<std::string, std::uint64_t>& calls);

/// discount_course_calls of the one cudaDeviceSynchronize with which a recording on one GPU ends.
void discount_closing_synchronize(Timeline& timeline, std::uint64_t thread);

/// Parses a record's text (JSON lines). Throws RecordFormatError, naming the line.
[[nodiscard]] Record parse_record(const std::string& text);

/// Reads the record at `path`. Throws RecordFormatError, its message starting with the path.
[[nodiscard]] Record read_record(const std::string& path);

// ---------------------------------------------------------------- writing, line by line

/// The record's first line, written by the harness (with the run's job salt; without, as records made before it),
/// saying "simulated" where the harness belongs to the simulated build (Record::simulated).
[[nodiscard]] std::string header_line(const std::string& lab, const std::string& program, const std::string& date,
                                      std::uint32_t seed, std::optional<std::uint32_t> job_salt = std::nullopt,
                                      bool simulated = false);
/// The set-up's line, written by the recording program before any scenario:
/// the device (GPU 0), the values every scenario shares and, for a recording on
/// several GPUs at once, the facts of GPU 1, 2, ... (`more_gpus`, in order).
[[nodiscard]] std::string setup_line(const DeviceFacts& device, const std::map<std::string, double>& values,
                                     const std::vector<DeviceFacts>& more_gpus = {});
/// The set-up's line of a recording that found no usable GPU, or fewer than it
/// needs, and why, in the grader's words (words::kSkipNoGpu, words::kSkipNeedsGpus).
[[nodiscard]] std::string no_gpu_line(const std::string& reason);
/// The line that says a scenario starts: what a crash or a hang is charged to.
[[nodiscard]] std::string started_line(const std::string& scenario);
/// A scenario's last line: its outcome and, when recorded, what it recorded.
[[nodiscard]] std::string scenario_line(const Scenario& scenario);
/// The harness's last line: how the run ended and what the harness observed itself
/// (without, as records made before it).
[[nodiscard]] std::string end_line(const std::string& how,
                                   const std::optional<HarnessObservations>& observed = std::nullopt);

/// Not a line of the record: the recording program's word that it ran to its end,
/// sent just before its main returns 0. The harness notes it (ProgramStart::finished)
/// and keeps it out of the record file.
[[nodiscard]] std::string finished_line();

/// Not a line of the record: the recording program's request to the harness, sent
/// before it exits with kRestartAfterFailureStatus, to be started again at
/// `scenario` with `environment` set (recording::ProcessNeeds). The harness keeps
/// it out of the record file.
[[nodiscard]] std::string restart_at_line(const std::string& scenario,
                                          const std::map<std::string, std::string>& environment);

}  // namespace streamlab::record
