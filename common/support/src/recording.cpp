#include "streamlab/recording.hpp"

#include <unistd.h>

#include <cuda_runtime_api.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <stdexcept>

#include "streamlab/check.hpp"
#include "streamlab/grader_words.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace streamlab::recording {

namespace {

[[noreturn]] void usage(const std::string& problem) {
    std::fprintf(
        stderr,
        "%s\nusage: (run by streamlab_record) PROGRAM --record-fd N --seed S --job-salt K [--after SCENARIO | --at "
        "SCENARIO] [--setup KEY=VALUE ...]\n",
        problem.c_str());
    std::exit(2);
}

}  // namespace

void Session::send(const std::string& line) const {
    const std::string text = line + "\n";
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {  // the harness is gone: nothing this process does can be recorded any more
            std::fprintf(stderr, "recording: the harness no longer reads the record\n");
            std::_Exit(3);
        }
        written += static_cast<std::size_t>(n);
    }
}

std::size_t Session::salted_elements(std::size_t usual) const {
    return static_cast<std::size_t>(record::salted_elements(usual, job_salt_));
}

double Session::setup_value(const std::string& key, const std::function<double()>& measure) {
    if (setup_sent_) {
        throw std::logic_error("setup_value(\"" + key + "\") after the first scenario");
    }
    const auto given = given_.find(key);
    const double value = given != given_.end() ? given->second : measure();
    setup_[key] = value;
    return value;
}

void Session::send_setup_once() {
    if (!setup_sent_) {
        const std::vector<DeviceFacts> more_gpus(gpus_.size() > 1 ? gpus_.begin() + 1 : gpus_.end(), gpus_.end());
        send(record::setup_line(facts_, setup_, more_gpus));
        setup_sent_ = true;
    }
}

void Session::scenario(const std::string& name, const std::function<void(record::Scenario&)>& body) {
    scenario(name, ProcessNeeds{}, body);
}

void Session::scenario(const std::string& name, const ProcessNeeds& needs,
                       const std::function<void(record::Scenario&)>& body) {
    send_setup_once();
    if (!resumed_ && resume_at_.empty()) {
        resumed_ = name == resume_after_;  // the scenario the last run stopped in is behind us too
        return;
    }
    if (!resumed_) {
        if (name != resume_at_) {
            return;
        }
        // The harness started this process for this scenario, with the variables it asked for.
        resumed_ = true;
        environment_ = needs.environment;
    }
    if (spent_ || needs.environment != environment_) {
        // A scenario before left this process unusable, or this one needs variables
        // CUDA reads only when it starts: a fresh process, started at this scenario.
        send(record::restart_at_line(name, needs.environment));
        std::fflush(nullptr);
        std::_Exit(record::kRestartAfterFailureStatus);
    }
    send(record::started_line(name));
    record::Scenario scenario;
    scenario.name = name;
    not_recordable_.clear();
    try {
        body(scenario);
    } catch (const std::exception& thrown) {
        scenario = record::Scenario{name, record::Outcome::Failed, thrown.what(), std::nullopt, {}, std::nullopt};
    } catch (...) {
        scenario = record::Scenario{
            name,        record::Outcome::Failed, "threw something that is not a std::exception", std::nullopt, {},
            std::nullopt};
    }
    // A skip is what record() found, never what was thrown: the exception may have
    // crossed the student's code or another language (a Python track) on its way here.
    if (!not_recordable_.empty()) {
        scenario = record::Scenario{name, record::Outcome::Skipped, not_recordable_, std::nullopt, {}, std::nullopt};
    }
    if (scenario.outcome == record::Outcome::Recorded && !scenario.timeline) {
        scenario.outcome = record::Outcome::Failed;
        scenario.message = "the course's scenario recorded no timeline";
    }
    send(record::scenario_line(scenario));
    spent_ = needs.ends_process;  // the next scenario, if any, asks for a fresh process
    if (scenario.outcome == record::Outcome::Failed) {
        // The next scenario starts in a fresh process (the harness restarts this
        // program after this scenario), never in the GPU state the failure left.
        std::fflush(nullptr);
        std::_Exit(record::kRestartAfterFailureStatus);
    }
}

std::map<std::string, std::uint64_t> Session::synchronize_gpus() const {
    if (gpus_.size() <= 1) {
        SL_CHECK(cudaDeviceSynchronize());
        return {{"cudaDeviceSynchronize", 1}};
    }
    std::map<std::string, std::uint64_t> made{{"cudaGetDevice", 1}};
    int current = 0;
    SL_CHECK(cudaGetDevice(&current));
    const auto synchronize = [&](int device) {
        ++made["cudaSetDevice"];
        SL_CHECK(cudaSetDevice(device));
        ++made["cudaDeviceSynchronize"];
        SL_CHECK(cudaDeviceSynchronize());
    };
    for (const DeviceFacts& gpu : gpus_) {
        if (gpu.ordinal != current) {
            synchronize(gpu.ordinal);
        }
    }
    synchronize(current);
    return made;
}

void Session::record(record::Scenario& scenario, const std::string& program, const std::function<void()>& work) {
    if (const std::string off = tracing_off_reason(); !off.empty()) {
        work();
        (void)synchronize_gpus();
        not_recordable(words::kSkipTimelineUnavailable + off);
    }
    std::optional<Tracer> tracer;
    try {
        tracer.emplace(program);
    } catch (const TimelineUnavailable& unavailable) {
        if (tracer_started_before()) {
            throw std::runtime_error(std::string("no longer usable after the code under test ran: ") +
                                     unavailable.what());
        }
        not_recordable(unavailable.what());
    }
    // What `work` throws fails the scenario, whatever it is: only not_recordable(),
    // the course's, turns a scenario into a skipped one.
    work();
    // The course's calls, not the scenario's: discounted below. Every GPU, so that
    // no op of a GPU the code left working ends after the mark.
    const std::map<std::string, std::uint64_t> course_calls = synchronize_gpus();
    tracer->mark(record::kRecordingEndsMark);
    scenario.timeline = tracer->finish();
    record::discount_course_calls(*scenario.timeline, host_thread_id(), course_calls);
}

void Session::not_recordable(const std::string& why) {
    not_recordable_ = why;
    throw std::runtime_error(why);
}

void Session::run_untraced(record::Scenario& scenario, const std::string& program, const std::function<void()>& work) {
    work();
    scenario.timeline = record::untraced_timeline(facts_, program);
}

RecordedPipeline prepare_recorded_pipeline(Session& session) {
    const auto n = static_cast<std::size_t>(session.setup_value("n", [&] {
        return static_cast<double>(session.salted_elements(pipeline_elements(session.facts().total_memory_bytes)));
    }));
    RecordedPipeline prepared{PipelineMemory(n), 0, 1};
    fill_input(prepared.memory.input.data(), n, session.seed());
    prepared.h2d_ms = session.setup_value("h2d_ms", [&] { return measure_h2d_ms(prepared.memory.input.bytes()); });
    prepared.iterations = static_cast<int>(session.setup_value(
        "iterations", [&] { return static_cast<double>(iterations_for_kernel_ms(n, prepared.h2d_ms)); }));
    return prepared;
}

int record_scenarios(int argc, char** argv, const std::function<void(Session&)>& scenarios, int gpus) {
    Session session;
    bool seeded = false;
    bool salted = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) {
            usage(arg + " needs a value");
        }
        const std::string value = argv[++i];
        try {
            if (arg == "--record-fd") {
                session.fd_ = std::stoi(value);
            } else if (arg == "--seed") {
                session.seed_ = static_cast<std::uint32_t>(std::stoul(value));
                seeded = true;
            } else if (arg == "--job-salt") {
                const unsigned long salt = std::stoul(value);
                if (salt < record::kMinJobSalt || salt > record::kMaxJobSalt) {
                    usage("--job-salt " + value + ": not from " + std::to_string(record::kMinJobSalt) + " to " +
                          std::to_string(record::kMaxJobSalt));
                }
                session.job_salt_ = static_cast<std::uint32_t>(salt);
                salted = true;
            } else if (arg == "--after") {
                session.resume_after_ = value;
                session.resumed_ = false;
            } else if (arg == "--at") {
                session.resume_at_ = value;
                session.resumed_ = false;
            } else if (arg == "--setup" && value.find('=') != std::string::npos) {
                session.given_[value.substr(0, value.find('='))] = std::stod(value.substr(value.find('=') + 1));
            } else {
                usage("unknown argument " + arg + " " + value);
            }
        } catch (const std::logic_error&) {  // stoi and friends
            usage(arg + " " + value + ": not a number");
        }
    }
    if (session.fd_ < 0 || !seeded || !salted) {
        usage("no --record-fd, no --seed or no --job-salt");
    }
    // Its last word before the process ends well: the harness records that it came.
    const auto finished = [&] {
        session.send(record::finished_line());
        return 0;
    };
    const GpuPresence presence = query_gpu_presence();
    if (!presence.available) {
        session.send(record::no_gpu_line(words::kSkipNoGpu + presence.reason));
        return finished();
    }
    if (presence.device_count < gpus) {  // nothing to record here, and nothing against the student
        session.send(record::no_gpu_line(needs_gpus_reason(gpus, presence.device_count)));
        return finished();
    }
    try {
        for (int gpu = 0; gpu < std::max(gpus, 1); ++gpu) {
            session.gpus_.push_back(query_device_facts(gpu));
        }
        session.facts_ = session.gpus_.front();
        scenarios(session);
    } catch (const std::exception& thrown) {  // the set-up, outside any scenario
        std::fprintf(stderr, "recording: the set-up failed: %s\n", thrown.what());
        return 1;
    }
    return finished();
}

}  // namespace streamlab::recording
