// streamlab_record: the harness of a lab's recording run (common/RECORD_FORMAT.md).
//
//   streamlab_record --lab NN --out FILE --timeout SECONDS [--seed S] [--job-salt K] -- PROGRAM [ARG ...]
//
// Starts the lab's recording program (the only process that runs the student's
// code), reads the lines it sends on a pipe, and writes them to FILE with what
// the harness saw itself: a scenario in which the program died (it is started
// again at the next scenario, with the same seed and set-up), or one that was
// still running at the deadline (then the run ends: a hang costs one timeout
// per lab, not one per test). A scenario that needs a process of its own is
// asked for by the program (a restart_at line, then exit status 75): the
// harness starts it again at that scenario, with the environment variables it
// named set. It chooses what no record made in advance can know (the seed, the
// job salt that every element count follows) and adds to the end line what it
// observed itself: how each start ended, each scenario's wall time on its own
// clock, the GPUs' names as NVML gives them. It decides no verdict; the judges read FILE.
// Exit status 0 whenever FILE was written, so that the judges run and say why.
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "json_file.hpp"
#include "streamlab/record.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using streamlab::record::Outcome;

/// Twice as many restarts as any lab has scenarios (each may need a process of its
/// own, and the one after it another): a program that keeps dying is stopped.
constexpr int kMaxRestarts = 64;

struct Options {
    std::string lab;
    std::string out;
    double timeout_s = 0;
    std::uint32_t seed = 0;
    bool seeded = false;
    std::uint32_t job_salt = 0;        // 0: chosen at random
    std::vector<std::string> program;  // the recording program and its own arguments
};

[[noreturn]] void usage(const std::string& problem) {
    std::fprintf(stderr,
                 "streamlab_record: %s\nusage: streamlab_record --lab NN --out FILE --timeout SECONDS [--seed S] "
                 "[--job-salt K] -- PROGRAM [ARG ...]\n",
                 problem.c_str());
    std::exit(2);
}

Options parse_options(int argc, char** argv) {
    Options options;
    int i = 1;
    for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) {
            usage(arg + " needs a value");
        }
        const std::string value = argv[++i];
        try {
            if (arg == "--lab") {
                options.lab = value;
            } else if (arg == "--out") {
                options.out = value;
            } else if (arg == "--timeout") {
                options.timeout_s = std::stod(value);
            } else if (arg == "--seed") {
                options.seed = static_cast<std::uint32_t>(std::stoul(value));
                options.seeded = true;
            } else if (arg == "--job-salt") {
                const unsigned long salt = std::stoul(value);
                if (salt < streamlab::record::kMinJobSalt || salt > streamlab::record::kMaxJobSalt) {
                    usage("--job-salt " + value + ": not from " + std::to_string(streamlab::record::kMinJobSalt) +
                          " to " + std::to_string(streamlab::record::kMaxJobSalt));
                }
                options.job_salt = static_cast<std::uint32_t>(salt);
            } else {
                usage("unknown option " + arg);
            }
        } catch (const std::logic_error&) {
            usage(arg + " " + value + ": not a number");
        }
    }
    for (++i; i < argc; ++i) {
        options.program.emplace_back(argv[i]);
    }
    if (options.lab.empty() || options.out.empty() || options.timeout_s <= 0 || options.program.empty()) {
        usage("--lab, --out, a positive --timeout and the program after -- are all needed");
    }
    return options;
}

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return text;
}

/// How a process ended, in words: "exit status 1", "killed by signal 11 (Segmentation fault)".
std::string how_it_ended(int status) {
    if (WIFSIGNALED(status)) {
        return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    }
    return "exit status " + std::to_string(WEXITSTATUS(status));
}

/// The few NVML functions the harness calls, declared here: NVML is opened at run
/// time (dlopen), never linked, so that the harness runs where no driver is.
using NvmlReturn = int;  // nvmlReturn_t: 0 is NVML_SUCCESS
using NvmlDevice = struct NvmlDeviceOpaque*;
using NvmlInit = NvmlReturn (*)();
using NvmlGetCount = NvmlReturn (*)(unsigned int*);
using NvmlGetHandle = NvmlReturn (*)(unsigned int, NvmlDevice*);
using NvmlGetName = NvmlReturn (*)(NvmlDevice, char*, unsigned int);
using NvmlShutdown = NvmlReturn (*)();
using NvmlErrorString = const char* (*)(NvmlReturn);

/// NVML's name buffer (NVML_DEVICE_NAME_V2_BUFFER_SIZE).
constexpr unsigned int kNvmlNameLength = 96;

/// A function of the opened NVML library, or nullptr.
template <typename Function>
Function nvml_function(void* library, const char* name) {
    return reinterpret_cast<Function>(::dlsym(library, name));
}

/// The NVML library, opened, and the functions the harness calls.
struct Nvml {
    void* library = nullptr;
    NvmlInit init = nullptr;
    NvmlGetCount get_count = nullptr;
    NvmlGetHandle get_handle = nullptr;
    NvmlGetName get_name = nullptr;
    NvmlShutdown shutdown = nullptr;
    NvmlErrorString error_string = nullptr;  // optional: for the words of a failure
};

/// Opens NVML into `nvml`: "" when every function is there, else why not (and nothing is left open).
std::string open_nvml(Nvml& nvml) {
    nvml.library = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (nvml.library == nullptr) {
        return "no NVML: libnvidia-ml.so.1 not found";
    }
    nvml.init = nvml_function<NvmlInit>(nvml.library, "nvmlInit_v2");
    nvml.get_count = nvml_function<NvmlGetCount>(nvml.library, "nvmlDeviceGetCount_v2");
    nvml.get_handle = nvml_function<NvmlGetHandle>(nvml.library, "nvmlDeviceGetHandleByIndex_v2");
    nvml.get_name = nvml_function<NvmlGetName>(nvml.library, "nvmlDeviceGetName");
    nvml.shutdown = nvml_function<NvmlShutdown>(nvml.library, "nvmlShutdown");
    nvml.error_string = nvml_function<NvmlErrorString>(nvml.library, "nvmlErrorString");
    if (nvml.init == nullptr || nvml.get_count == nullptr || nvml.get_handle == nullptr || nvml.get_name == nullptr ||
        nvml.shutdown == nullptr) {
        ::dlclose(nvml.library);
        return "no NVML: libnvidia-ml.so.1 lacks the functions the harness reads names with";
    }
    return "";
}

/// Why an NVML call failed, in NVML's words where it has them.
std::string nvml_failure(const Nvml& nvml, const char* call, NvmlReturn code) {
    const std::string words = nvml.error_string != nullptr ? nvml.error_string(code) : "";
    return "NVML: " + std::string(call) + " failed (error " + std::to_string(code) +
           (words.empty() ? "" : ": " + words) + ")";
}

/// Every GPU's name into `names`, by NVML index, NVML started: NVML's code of the first call that failed, or 0.
NvmlReturn read_names(const Nvml& nvml, std::vector<std::string>& names) {
    unsigned int count = 0;
    NvmlReturn code = nvml.get_count(&count);
    for (unsigned int i = 0; code == 0 && i < count; ++i) {
        NvmlDevice device = nullptr;
        char name[kNvmlNameLength] = {};
        code = nvml.get_handle(i, &device);
        if (code == 0) {
            code = nvml.get_name(device, name, kNvmlNameLength);
        }
        names.emplace_back(name);
    }
    return code;
}

/// The names of the machine's GPUs, by NVML index, as this process reads them
/// through the driver (never from the recording program); none, with why not,
/// where it cannot. NVML lists every GPU of the machine, whatever CUDA_VISIBLE_DEVICES hides, so
/// where the harness was started with CUDA_VISIBLE_DEVICES naming none (a grader's run "without a
/// GPU" on a machine that has one), it lists none either: the recording cannot use them.
void read_gpu_names(streamlab::record::HarnessObservations& observed) {
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
        visible != nullptr && std::string(visible).find_first_not_of(" \t,") == std::string::npos) {
        observed.gpu_reading = "CUDA_VISIBLE_DEVICES hides every GPU from this run";
        return;
    }
    Nvml nvml;
    if (std::string why_not = open_nvml(nvml); !why_not.empty()) {
        observed.gpu_reading = why_not;
        return;
    }
    if (const NvmlReturn started = nvml.init(); started != 0) {
        observed.gpu_reading = nvml_failure(nvml, "nvmlInit_v2", started);
    } else {
        std::vector<std::string> names;
        if (const NvmlReturn code = read_names(nvml, names); code == 0) {
            observed.gpus = names;
        } else {
            observed.gpu_reading = nvml_failure(nvml, "reading the GPUs' names", code);
        }
        nvml.shutdown();
    }
    ::dlclose(nvml.library);
}

/// One start of the recording program.
struct Start {
    pid_t pid = -1;
    int from_program = -1;  // the read end of the record pipe
};

/// Starts the program with `extra` arguments after its own and `environment` added to the harness's.
Start start_program(const Options& options, const std::vector<std::string>& extra,
                    const std::map<std::string, std::string>& environment) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) {
        std::perror("streamlab_record: pipe");
        std::exit(1);
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        std::perror("streamlab_record: fork");
        std::exit(1);
    }
    if (pid == 0) {
        ::setpgid(0, 0);                     // its own process group, so that a hang is stopped whole
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // and never outlives the harness (ctest's timeout kills the harness)
        ::close(pipe_fds[0]);
        for (const auto& [name, value] : environment) {
            ::setenv(name.c_str(), value.c_str(), 1);
        }
        std::vector<std::string> args = options.program;
        args.insert(args.end(), {"--record-fd", std::to_string(pipe_fds[1])});
        args.insert(args.end(), extra.begin(), extra.end());
        std::vector<char*> argv;
        for (std::string& arg : args) {
            argv.push_back(arg.data());
        }
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        std::fprintf(stderr, "streamlab_record: cannot start %s: %s\n", argv[0], std::strerror(errno));
        std::_Exit(127);
    }
    ::close(pipe_fds[1]);
    return {pid, pipe_fds[0]};
}

/// The recording so far, and what the harness knows of where the program is.
struct Run {
    std::vector<std::string> lines;
    std::map<std::string, double> setup;  // the first start's set-up values
    bool setup_seen = false;
    std::string no_gpu;                               // why the program found no usable GPU, as it said
    std::string current;                              // the scenario started and not yet ended
    std::string last;                                 // the scenario whose last line came last
    std::string restart_at;                           // the scenario the program asked to be started at
    std::map<std::string, std::string> environment;   // and the variables it asked for
    bool finished = false;                            // this start sent its finished line
    Clock::time_point current_since;                  // when the current scenario's started line came
    streamlab::record::HarnessObservations observed;  // what the harness saw itself, for the end line
};

/// A scenario's last line has come (from the program, or from the harness, which saw it crash or hang) at
/// `when`: its wall time, on the harness's clock, from its started line.
void scenario_ends(Run& run, const std::string& scenario, Clock::time_point when) {
    if (!run.current.empty() && scenario == run.current) {
        run.observed.scenario_wall_ms[scenario] =
            std::chrono::duration<double, std::milli>(when - run.current_since).count();
    }
}

/// Takes one line from the program, received at `when`: kept as it is (the judges
/// validate the record; a line that imitates the harness's header or end line
/// makes the record unreadable), and read for where the program is; a request to be
/// started again at a scenario (record::restart_at_line) and the program's finished
/// line (record::finished_line) are noted, not kept.
void take_line(Run& run, const std::string& line, Clock::time_point when) {
    const nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object() && parsed.size() == 1 && parsed.contains("finished") && parsed["finished"] == true) {
        run.finished = true;
        return;
    }
    if (parsed.is_object() && parsed.contains("restart_at") && parsed["restart_at"].is_string()) {
        run.restart_at = parsed["restart_at"].get<std::string>();
        run.environment.clear();
        if (parsed.contains("environment") && parsed["environment"].is_object()) {
            for (const auto& [name, value] : parsed["environment"].items()) {
                if (value.is_string()) {
                    run.environment[name] = value.get<std::string>();
                }
            }
        }
        return;
    }
    run.lines.push_back(line);
    if (!parsed.is_object()) {
        return;
    }
    if (parsed.contains("started") && parsed["started"].is_string()) {
        run.current = parsed["started"].get<std::string>();
        run.current_since = when;
    } else if (parsed.contains("scenario")) {
        run.last = parsed["scenario"].is_string() ? parsed["scenario"].get<std::string>() : "";
        scenario_ends(run, run.last, when);
        run.current.clear();
    } else if (!run.setup_seen && parsed.contains("setup") && parsed["setup"].is_object() &&
               parsed["setup"].contains("values") && parsed["setup"]["values"].is_object()) {
        for (const auto& [key, value] : parsed["setup"]["values"].items()) {
            if (value.is_number()) {
                run.setup[key] = value.get<double>();
            }
        }
        run.setup_seen = true;
    } else if (parsed.contains("setup") && parsed["setup"].is_object() && parsed["setup"].contains("no_gpu") &&
               parsed["setup"]["no_gpu"].is_string()) {
        run.no_gpu = parsed["setup"]["no_gpu"].get<std::string>();
    }
}

std::string ended_line(const std::string& scenario, Outcome outcome, const std::string& message) {
    streamlab::record::Scenario ended;
    ended.name = scenario;
    ended.outcome = outcome;
    ended.message = message;
    return streamlab::record::scenario_line(ended);
}

/// Waits for the program to end, until the deadline: false, with its process group killed, when it
/// is still running then (it closed the pipe but goes on).
bool wait_until_done(const Start& start, Clock::time_point deadline, int& status) {
    for (;;) {
        const pid_t ended = ::waitpid(start.pid, &status, WNOHANG);
        if (ended == start.pid || (ended < 0 && errno != EINTR)) {
            return true;
        }
        if (Clock::now() >= deadline) {
            ::kill(-start.pid, SIGKILL);
            ::kill(start.pid, SIGKILL);
            ::waitpid(start.pid, &status, 0);
            return false;
        }
        ::usleep(10 * 1000);
    }
}

/// Reads the program's lines until it closes the pipe or the deadline passes.
/// Returns false at the deadline, with the program's process group killed.
bool read_until_done(Run& run, const Start& start, Clock::time_point deadline) {
    std::string pending;
    char buffer[1 << 16];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            ::kill(-start.pid, SIGKILL);
            ::kill(start.pid, SIGKILL);
            return false;
        }
        pollfd watched{start.from_program, POLLIN, 0};
        const int ready = ::poll(&watched, 1, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR) {
            return true;
        }
        if (ready <= 0) {
            continue;
        }
        const ssize_t n = ::read(start.from_program, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (!pending.empty()) {
                take_line(run, pending, Clock::now());  // a last line without its newline: the judges say it is cut
            }
            return true;
        }
        pending.append(buffer, static_cast<std::size_t>(n));
        const Clock::time_point received = Clock::now();
        for (std::size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1)) {
            take_line(run, pending.substr(0, end), received);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse_options(argc, argv);
    std::remove(options.out.c_str());  // a judge never reads an earlier run's record
    std::random_device entropy;
    // New data each run: outputs cannot be prepared in advance.
    const std::uint32_t seed = options.seeded ? options.seed : entropy();
    // A new size each run: every copy's byte count follows from it, so no other run's trace fits.
    const std::uint32_t job_salt = options.job_salt != 0
                                       ? options.job_salt
                                       : std::uniform_int_distribution<std::uint32_t>(
                                             streamlab::record::kMinJobSalt, streamlab::record::kMaxJobSalt)(entropy);
    Run run;
    read_gpu_names(run.observed);
    run.lines.push_back(streamlab::record::header_line(options.lab, options.program.front(), utc_now(), seed, job_salt,
                                                       streamlab::record::kSimulatedBuild));
    const Clock::time_point deadline =
        Clock::now() + std::chrono::milliseconds(static_cast<long long>(options.timeout_s * 1000));

    std::string ended = "complete";
    std::string resume_after;                        // after a failure or a crash: the scenario to go on after
    std::string resume_at;                           // or the scenario the program asked to be started at
    std::map<std::string, std::string> environment;  // and the variables it asked for
    int restarts = 0;
    for (;;) {
        std::vector<std::string> extra = {"--seed", std::to_string(seed), "--job-salt", std::to_string(job_salt)};
        if (!resume_after.empty() || !resume_at.empty()) {
            if (!resume_after.empty()) {
                extra.insert(extra.end(), {"--after", resume_after});
            } else {
                extra.insert(extra.end(), {"--at", resume_at});
            }
            for (const auto& [key, value] : run.setup) {
                char text[64];
                std::snprintf(text, sizeof text, "%.17g", value);
                extra.insert(extra.end(), {"--setup", key + "=" + text});
            }
        }
        const Start start = start_program(options, extra, environment);
        run.restart_at.clear();
        run.finished = false;
        bool in_time = read_until_done(run, start, deadline);
        ::close(start.from_program);
        int status = 0;
        if (in_time) {
            in_time = wait_until_done(start, deadline, status);
        } else {
            ::waitpid(start.pid, &status, 0);  // killed by read_until_done
        }
        run.observed.starts.push_back({in_time ? how_it_ended(status) : "killed at the deadline", run.finished});
        if (!in_time) {
            const std::string why =
                "did not finish within the recording's " + std::to_string(static_cast<int>(options.timeout_s)) + " s";
            if (!run.current.empty()) {
                scenario_ends(run, run.current, Clock::now());
                run.lines.push_back(ended_line(run.current, Outcome::Hung, why));
                ended = "stopped: scenario " + run.current + " " + why;
            } else {
                ended = "stopped: the recording program " + why + " (outside any scenario)";
            }
            break;
        }
        const bool asks_restart =
            WIFEXITED(status) && WEXITSTATUS(status) == streamlab::record::kRestartAfterFailureStatus;
        if (run.current.empty() && asks_restart && !run.restart_at.empty()) {
            // The next scenario needs a process of its own: started at it, with its variables.
            if (++restarts > kMaxRestarts) {
                ended = "stopped: the recording program restarted " + std::to_string(restarts) + " times";
                break;
            }
            resume_after.clear();
            resume_at = run.restart_at;
            environment = run.environment;
            continue;
        }
        resume_at.clear();
        environment.clear();  // every other start is an ordinary process
        if (run.current.empty() && asks_restart && !run.last.empty()) {
            // A scenario failed and the program asks for a fresh process for the ones after it.
            if (++restarts > kMaxRestarts) {
                ended = "stopped: the recording program restarted " + std::to_string(restarts) + " times";
                break;
            }
            resume_after = run.last;
            continue;
        }
        if (run.current.empty()) {
            if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                ended = "stopped: the recording program ended outside any scenario, " + how_it_ended(status) +
                        " (its output above says why)";
            } else if (!run.setup_seen && run.no_gpu.empty()) {
                // An exit before the set-up (a static initializer that ends the program, say) is no recording.
                ended =
                    "stopped: the recording program ended before its set-up, with exit status 0 "
                    "(its output above says why)";
            }
            break;
        }
        // It died inside a scenario: charge that scenario alone, and start again after it.
        // Each start begins after the last crash, so the restarts end with the scenarios.
        scenario_ends(run, run.current, Clock::now());
        run.lines.push_back(
            ended_line(run.current, Outcome::Crashed, "the recording process was " + how_it_ended(status) + " in it"));
        if (++restarts > kMaxRestarts) {
            ended = "stopped: the recording process died in " + std::to_string(restarts) + " scenarios";
            break;
        }
        resume_after = run.current;
        run.current.clear();
    }
    run.lines.push_back(streamlab::record::end_line(ended, run.observed));

    std::string text;
    for (const std::string& line : run.lines) {
        text += line + "\n";
    }
    try {
        streamlab::detail::write_file_atomically(options.out, text, "record");
    } catch (const std::exception& error) {
        std::fprintf(stderr, "streamlab_record: %s\n", error.what());
        return 1;
    }
    std::printf("streamlab_record: lab %s, seed %u, job salt %u: %s; record %s\n", options.lab.c_str(), seed, job_salt,
                ended.c_str(), options.out.c_str());
    if (!run.no_gpu.empty()) {
        // Nothing was recorded: ctest says "not run" with the reason (the record says it too), never "passed".
        std::printf("[  SKIPPED ] %s\n", run.no_gpu.c_str());
    }
    return 0;
}
