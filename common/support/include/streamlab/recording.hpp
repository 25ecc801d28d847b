/// @file recording.hpp
/// @brief A lab's recording program: the one process that runs a student's code
/// for grading. It runs the lab's scenarios one after another and sends each
/// one's record to the harness (`streamlab_record`), never a verdict.
///
///     int main(int argc, char** argv) {
///         return streamlab::recording::record_scenarios(argc, argv, [](streamlab::recording::Session& session) {
///             const int iterations = static_cast<int>(session.setup_value("iterations", [] { return 40.0; }));
///             session.scenario("pipeline", [&](streamlab::record::Scenario& scenario) {
///                 session.record(scenario, "run_pipeline", [&] { (void)run_pipeline(job, iterations); });
///             });
///         });
///     }
///
/// The harness starts the program again after a scenario that crashed, at the
/// next scenario, with the seed and the set-up's values of the first start, so
/// every scenario of one record ran on the same data. A scenario that needs a
/// process of its own (environment variables CUDA reads when it starts, or a
/// process it leaves unusable on purpose) says so with ProcessNeeds, and the
/// harness starts one for it the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "streamlab/device.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/record.hpp"

namespace streamlab::recording {

/// What a scenario needs of the process it runs in, beyond an ordinary one
/// (common/RECORD_FORMAT.md, "A process of its own").
struct ProcessNeeds {
    /// Variables the process must have had from its start, for what reads them
    /// only then (CUDA reads CUDA_LAUNCH_BLOCKING when it starts). A scenario whose
    /// variables differ from its process's makes the program ask the harness for a
    /// fresh process with them; scenarios in a row that ask for the same ones share it.
    std::map<std::string, std::string> environment;
    /// The scenario leaves its process unusable on purpose (it provokes a sticky
    /// CUDA error): the next scenario asks for a fresh process, as one that needs
    /// other variables does (the course's code between the two must not use the GPU).
    bool ends_process = false;
};

/// What a lab's scenarios see of the recording run.
class Session {
public:
    /// The device the scenarios run on (GPU 0).
    [[nodiscard]] const DeviceFacts& facts() const noexcept { return facts_; }

    /// Every GPU the scenarios use, by device ordinal (record_scenarios's `gpus`):
    /// `gpus()[0]` is facts(). The record's set-up carries them all.
    [[nodiscard]] const std::vector<DeviceFacts>& gpus() const noexcept { return gpus_; }

    /// The input's seed the harness chose (fill_input(data, n, seed())).
    [[nodiscard]] std::uint32_t seed() const noexcept { return seed_; }

    /// The job salt the harness chose for this run (record::kMinJobSalt to
    /// record::kMaxJobSalt): every element count a lab picks is
    /// salted_elements(usual), so that its copies' bytes follow from this run alone.
    [[nodiscard]] std::uint32_t job_salt() const noexcept { return job_salt_; }

    /// `usual` elements bound to this run's job salt (record::salted_elements):
    /// a little fewer, n % record::kJobSaltModulus == job_salt().
    [[nodiscard]] std::size_t salted_elements(std::size_t usual) const;

    /// A value every scenario shares (an element count, a calibrated iteration
    /// count): after a restart the first start's, otherwise `measure()`'s. Call
    /// them all before the first scenario.
    double setup_value(const std::string& key, const std::function<double()>& measure);

    /// Runs scenario `name` (unless the run restarted after it) and sends its
    /// record: what `body` put into the scenario, or, when `body` threw, that it
    /// failed and why, or that it could not be recorded here (record()'s skips).
    void scenario(const std::string& name, const std::function<void(record::Scenario&)>& body);

    /// scenario(name, body) in a process that meets `needs`: where this one does
    /// not (its environment differs), the program asks the harness for one that
    /// does and exits; the harness starts it again at this scenario.
    void scenario(const std::string& name, const ProcessNeeds& needs,
                  const std::function<void(record::Scenario&)>& body);

    /// Inside a scenario: runs `work` (the student's code) while CUPTI records
    /// and puts the timeline into `scenario`; every GPU of the session is
    /// synchronized before the recording ends (calls of the course's that the
    /// timeline does not count: record::discount_course_calls). Where no timeline can be
    /// recorded, `work` still runs when the tracer is off (so that
    /// compute-sanitizer sees it) and the scenario is skipped with the reason; a
    /// tracer that worked earlier in this process and no longer starts was
    /// broken by the code under test: a failure.
    void record(record::Scenario& scenario, const std::string& program, const std::function<void()>& work);

    /// Inside a scenario: runs `work` (the student's code) with no tracer, for a
    /// run judged by what it returned and what the course saw afterwards, which no
    /// tracer would survive (a kernel that fails with a sticky error). The
    /// scenario's trace holds no ops, only its end mark.
    void run_untraced(record::Scenario& scenario, const std::string& program, const std::function<void()>& work);

private:
    friend int record_scenarios(int argc, char** argv, const std::function<void(Session&)>& scenarios, int gpus);
    void send(const std::string& line) const;
    void send_setup_once();
    /// Waits for every GPU of the session, the current one last and current again
    /// afterwards; the runtime calls it made, by name (for record::discount_course_calls).
    [[nodiscard]] std::map<std::string, std::uint64_t> synchronize_gpus() const;
    /// Ends the scenario as skipped here, for `why`: the one way a scenario is skipped.
    [[noreturn]] void not_recordable(const std::string& why);

    int fd_ = -1;
    std::uint32_t seed_ = 1;
    std::uint32_t job_salt_ = record::kMinJobSalt;
    DeviceFacts facts_;
    std::vector<DeviceFacts> gpus_;
    std::string resume_after_;  // the scenario to skip up to, on a restart
    std::string resume_at_;     // the scenario to skip to, on a start the program asked for (--at)
    bool resumed_ = true;       // false while scenarios up to resume_after_ or resume_at_ are skipped
    std::map<std::string, std::string> environment_;  // what the harness set for this process (ProcessNeeds)
    bool spent_ = false;  // a scenario left this process unusable (ProcessNeeds::ends_process)
    bool setup_sent_ = false;
    std::map<std::string, double> given_;  // the set-up's values, from the command line
    std::map<std::string, double> setup_;  // the set-up's values, as sent
    std::string not_recordable_;           // why this scenario cannot be recorded here; empty when it can
};

/// The pipeline memory a lab's scenarios share, its input filled from the
/// record's seed, and the kernel sized to it (prepare_recorded_pipeline).
struct RecordedPipeline {
    PipelineMemory memory;  ///< Set-up value "n" floats each; the input fill_input(data, n, session.seed()).
    double h2d_ms = 0;      ///< The whole input's H2D copy, measured (set-up value "h2d_ms").
    int iterations = 1;     ///< Workload iterations of a kernel over all of it that takes about h2d_ms ("iterations").
};

/// The set-up of a lab that records a chunked pipeline, as the lab's tests sized
/// it: the set-up values "n" (pipeline_elements for this GPU, bound to the run's
/// job salt: Session::salted_elements), "h2d_ms"
/// (measure_h2d_ms of the whole input) and "iterations" (iterations_for_kernel_ms
/// of n elements and h2d_ms); allocates the memory and fills the input from the
/// seed. Call it before the first scenario, like Session::setup_value.
[[nodiscard]] RecordedPipeline prepare_recorded_pipeline(Session& session);

/// The `main` of a lab's recording program. Reads the harness's command line
/// (`--record-fd N --seed S --job-salt K [--after SCENARIO | --at SCENARIO] [--setup KEY=VALUE ...]`), and
/// where the `gpus` GPUs the scenarios use at once (devices 0 to gpus - 1: the
/// lab's gpus in lab.json) are usable, calls `scenarios` (which calls
/// Session::scenario for each); where none is, or fewer are, sends only why, in
/// the grader's words (words::kSkipNoGpu; needs_gpus_reason), which the judges
/// give as their reason for not grading. Returns the process's exit status; before
/// it returns 0 (every scenario ran, or none could here), it sends the harness its
/// finished line (record::finished_line), which no restart request or failure exit sends.
int record_scenarios(int argc, char** argv, const std::function<void(Session&)>& scenarios, int gpus = 1);

}  // namespace streamlab::recording
