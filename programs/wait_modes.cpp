// lab09_wait_modes: what a host thread pays to wait for the GPU, each way it can
// wait (lab 09, Task 3). The GPU work is the graded tests' long job (wait_side.hpp:
// the pipeline's memory in, ten kernels, the results out); for each way the
// program notes the process's CPU time during the wait and the delay from the
// GPU's last op (CUPTI's record) to the host's return, and prints the medians of
// R runs as a table:
//
//   spin, yield, blocking-sync  cudaStreamSynchronize under that schedule flag
//   auto                        cudaStreamSynchronize under the default flag
//   event                       the solution's wait_blocking (an event made with cudaEventBlockingSync)
//   polling                     the solution's wait_polling, with slices of host work
//
// A schedule flag belongs to the device's primary context and takes effect when
// the context is created, so each way runs in a process of its own, a child of
// this one (`--mode NAME`), which sets it before its first other CUDA call.
//
// Usage: lab09_wait_modes [--repeats R]
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "lab09.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/check.hpp"
#include "streamlab/device.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/tracer.hpp"
#include "wait_side.hpp"

extern char** environ;

namespace {

using lab09::course::HostWork;
using lab09::course::ObservedWait;
using lab09::course::WaitJob;

/// One way to wait: its name, the schedule flag its process runs under, and what it calls.
struct WaitMode {
    const char* name;
    unsigned int flags;
    const char* how;
};

constexpr WaitMode kModes[] = {
    {"spin", cudaDeviceScheduleSpin, "cudaStreamSynchronize"},
    {"yield", cudaDeviceScheduleYield, "cudaStreamSynchronize"},
    {"blocking-sync", cudaDeviceScheduleBlockingSync, "cudaStreamSynchronize"},
    {"auto", cudaDeviceScheduleAuto, "cudaStreamSynchronize"},
    {"event", cudaDeviceScheduleAuto, "wait_blocking (cudaEventBlockingSync)"},
    {"polling", cudaDeviceScheduleAuto, "wait_polling (cudaStreamQuery)"},
};

const WaitMode* find_mode(const std::string& name) {
    for (const WaitMode& mode : kModes) {
        if (name == mode.name) {
            return &mode;
        }
    }
    return nullptr;
}

/// The schedule flag `flags` holds, by name.
const char* schedule_name(unsigned int flags) {
    switch (flags & cudaDeviceScheduleMask) {
        case cudaDeviceScheduleSpin:
            return "spin";
        case cudaDeviceScheduleYield:
            return "yield";
        case cudaDeviceScheduleBlockingSync:
            return "blocking-sync";
        default:
            return "auto";
    }
}

/// Runs `mode` `repeats` times in this process and prints its row of the table.
int measure_mode(const WaitMode& mode, int repeats) {
    const streamlab::DeviceFacts facts = streamlab::query_device_facts(0);
    WaitJob job(facts);
    HostWork work(job.host_slice_ns());
    const std::function<void(cudaStream_t)> wait = [&](cudaStream_t stream) {
        if (std::strcmp(mode.name, "event") == 0) {
            lab09::wait_blocking(stream);
        } else if (std::strcmp(mode.name, "polling") == 0) {
            lab09::wait_polling(stream, work.as_function());
        } else {
            SL_CHECK(cudaStreamSynchronize(stream));
        }
    };
    std::vector<double> wall_ms, cpu_ms, cpu_share, wake_us, work_share;
    for (int r = 0; r < repeats; ++r) {
        const lab09::course::RecordedWait recorded =
            lab09::course::record_wait(job, lab09::course::kLongJobKernels, wait, &work);
        const ObservedWait& observed = recorded.observed;
        if (!observed.results.ok) {
            std::fprintf(stderr, "%s: wrong results after the wait: %s\n", mode.name,
                         observed.results.message().c_str());
            return 1;
        }
        wall_ms.push_back(streamlab::ms(observed.cost.wall_ns()));
        cpu_ms.push_back(streamlab::ms(observed.cost.cpu_ns));
        cpu_share.push_back(observed.cost.cpu_share());
        wake_us.push_back(
            static_cast<double>(lab09::course::wake_up_delay_ns(recorded.timeline, observed.cost.returned_ns)) / 1e3);
        work_share.push_back(static_cast<double>(work.busy_ns()) / static_cast<double>(observed.cost.wall_ns()));
    }
    unsigned int flags = 0;
    SL_CHECK(cudaGetDeviceFlags(&flags));
    std::printf("%-14s %-14s %-40s %9.2f %9.2f %8.2f %11.1f %10.2f\n", mode.name, schedule_name(flags), mode.how,
                streamlab::median(wall_ms), streamlab::median(cpu_ms), streamlab::median(cpu_share),
                streamlab::median(wake_us), streamlab::median(work_share));
    return 0;
}

/// Runs `mode` in a child process: `program --mode NAME --repeats R`. Its exit status.
int run_child(const char* program, const WaitMode& mode, int repeats) {
    const std::string repeats_text = std::to_string(repeats);
    std::vector<std::string> args = {program, "--mode", mode.name, "--repeats", repeats_text};
    std::vector<char*> argv;
    for (std::string& arg : args) {
        argv.push_back(arg.data());
    }
    argv.push_back(nullptr);
    std::fflush(stdout);  // the child writes to the same stdout
    pid_t child = 0;
    if (posix_spawn(&child, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) != 0) {
        std::fprintf(stderr, "%s: cannot start a process for %s\n", program, mode.name);
        return 1;
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int measure_all(const char* program, int repeats) {
    const streamlab::DeviceFacts facts = streamlab::query_device_facts(0);
    std::printf(
        "%s: the wait for %d kernels between the copies in and out, each way in a process of its own; "
        "medians of %d runs\n",
        facts.name.c_str(), lab09::course::kLongJobKernels, repeats);
    std::printf("%-14s %-14s %-40s %9s %9s %8s %11s %10s\n", "wait", "schedule", "calls", "wall ms", "CPU ms",
                "CPU/wall", "wake-up us", "work/wall");
    int status = 0;
    for (const WaitMode& mode : kModes) {
        if (run_child(program, mode, repeats) != 0) {
            std::printf("%-14s failed (see above)\n", mode.name);
            status = 1;
        }
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    int repeats = 5;
    const WaitMode* mode = nullptr;
    bool usage_ok = true;
    for (int i = 1; i < argc && usage_ok; ++i) {
        const std::string option = argv[i];
        const bool has_value = i + 1 < argc;
        if (option == "--repeats" && has_value) {
            repeats = std::atoi(argv[++i]);
            usage_ok = repeats >= 1;
        } else if (option == "--mode" && has_value) {
            mode = find_mode(argv[++i]);
            usage_ok = mode != nullptr;
        } else {
            usage_ok = false;
        }
    }
    if (!usage_ok) {
        std::fprintf(stderr, "usage: %s [--repeats R >= 1] [--mode spin|yield|blocking-sync|auto|event|polling]\n",
                     argv[0]);
        return 2;
    }
    if (mode == nullptr) {
        return streamlab::run_with_gpu(argv[0], [&] { return measure_all(argv[0], repeats); });
    }
    // The flag first: it is the device's, fixed when its primary context is created.
    if (const cudaError_t set = cudaSetDeviceFlags(mode->flags); set != cudaSuccess) {
        std::fprintf(stderr, "%s: cudaSetDeviceFlags(%s) failed: %s\n", argv[0], mode->name, cudaGetErrorName(set));
        return 1;
    }
    return streamlab::run_with_gpu(argv[0], [&] { return measure_mode(*mode, repeats); });
}
