#include "streamlab/tracer.hpp"

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "activity_recorder.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/check.hpp"
#include "streamlab/device.hpp"
#include "tracing_switch.hpp"

namespace streamlab {

namespace {

/// Whether a Tracer has started in this process (tracer_started_before).
std::atomic<bool> started_before{false};

/// The variable that turns the tracer off for a process (a test executable, say).
constexpr const char* kNoTraceVariable = "STREAMLAB_NO_TRACE";

std::mutex& switch_mutex() {
    static std::mutex mutex;
    return mutex;
}

/// What turned the tracer off with turn_tracing_off ("" while nothing did).
std::string& off_option() {
    static std::string option;
    return option;
}

// OpLabel's ranges live in a domain of their own, so that the recorder can tell
// them from the program's own ranges (see kLabelDomain).
nvtxDomainHandle_t label_domain() {
    static const nvtxDomainHandle_t domain = nvtxDomainCreateA(detail::kLabelDomain);
    return domain;
}

std::string off_sentence(const std::string& option) {
    return "the tracer is off (" + option +
           "), so CUPTI is left to tools such as compute-sanitizer; run without it to record a timeline";
}

/// Waits for the work of each of `devices` and of the current device, which stays current.
void synchronize_devices(const std::vector<std::uint32_t>& devices) {
    int current = 0;
    SL_CHECK(cudaGetDevice(&current));
    for (const std::uint32_t device : devices) {
        if (static_cast<int>(device) != current) {
            SL_CHECK(cudaSetDevice(static_cast<int>(device)));
            SL_CHECK(cudaDeviceSynchronize());
        }
    }
    SL_CHECK(cudaSetDevice(current));
    SL_CHECK(cudaDeviceSynchronize());
}

}  // namespace

namespace detail {

void turn_tracing_off(const std::string& option) {
    const std::lock_guard<std::mutex> lock(switch_mutex());
    off_option() = option;
}

std::string start_environment(const std::string& name) {
    std::ifstream environ_file("/proc/self/environ", std::ios::binary);
    if (!environ_file) {
        const char* value = std::getenv(name.c_str());
        return value != nullptr ? value : "";
    }
    const std::string all((std::istreambuf_iterator<char>(environ_file)), std::istreambuf_iterator<char>());
    const std::string prefix = name + "=";
    for (std::size_t begin = 0; begin < all.size();) {
        std::size_t end = all.find('\0', begin);
        if (end == std::string::npos) {
            end = all.size();
        }
        if (all.compare(begin, prefix.size(), prefix) == 0) {
            return all.substr(begin + prefix.size(), end - begin - prefix.size());
        }
        begin = end + 1;
    }
    return "";
}

}  // namespace detail

std::string tracing_off_reason() {
    {
        const std::lock_guard<std::mutex> lock(switch_mutex());
        if (!off_option().empty()) {
            return off_sentence(off_option());
        }
    }
    // Read once: the environment a process started with does not change.
    static const std::string from_environment = detail::start_environment(kNoTraceVariable);
    if (!from_environment.empty() && from_environment != "0") {
        return off_sentence(std::string(kNoTraceVariable) + "=" + from_environment);
    }
    return "";
}

Timeline unrecorded_timeline(const std::string& program, const std::string& why) {
    SL_CHECK(cudaDeviceSynchronize());  // as finish() does: the work has ended on return
    Timeline timeline;
    timeline.program = program;
    timeline.date = detail::utc_now_iso8601();
    timeline.not_recorded = why;
    int device = 0;
    SL_CHECK(cudaGetDevice(&device));
    timeline.device = query_device_facts(device);
    return timeline;
}

bool tracer_started_before() noexcept {
    return started_before.load();
}

Tracer::Tracer(std::string program) : program_(std::move(program)), date_(detail::utc_now_iso8601()) {
    if (const std::string off = tracing_off_reason(); !off.empty()) {
        throw TimelineUnavailable(off);
    }
    const GpuPresence presence = query_gpu_presence();
    if (!presence.available) {
        throw TimelineUnavailable(presence.reason);
    }
    recorder_ = std::make_unique<detail::ActivityRecorder>();
    // The first launch after CUPTI starts a new buffer can stall the host for
    // milliseconds. Take that stall here, on a tiny kernel of our own, rather
    // than in the middle of the work being recorded; then start afresh.
    detail::warm_up_recording();
    recorder_->restart_window();
    started_before.store(true);
}

Tracer::~Tracer() = default;  // the recorder's destructor stops recording

void Tracer::mark(const std::string& name) {
    detail::mark_now(name);
}

Timeline Tracer::finish() {
    if (!recorder_) {
        throw std::logic_error("streamlab::Tracer::finish() was already called");
    }
    // The calls the recorded work made, before this function makes its own.
    std::map<std::string, std::uint64_t> api_calls = recorder_->api_calls();
    std::map<std::uint64_t, std::uint64_t> api_calls_by_thread = recorder_->api_calls_by_thread();
    std::vector<StreamCall> stream_calls = recorder_->stream_calls();
    // A record gets its timestamps when its work completes: wait for all of it,
    // on every GPU the recorded calls used.
    synchronize_devices(recorder_->devices());
    recorder_->flush();
    Timeline timeline = recorder_->collect();
    recorder_.reset();  // stops recording

    timeline.api_calls = std::move(api_calls);
    timeline.api_calls_by_thread = std::move(api_calls_by_thread);
    for (StreamCall& call : stream_calls) {  // onto the timeline's clock, as the ops are
        call.time_ns = call.time_ns > timeline.origin_ns ? call.time_ns - timeline.origin_ns : 0;
    }
    timeline.stream_calls = std::move(stream_calls);
    timeline.program = program_;
    timeline.date = date_;
    int device = 0;
    SL_CHECK(cudaGetDevice(&device));
    timeline.device = query_device_facts(device);
    return timeline;
}

void host_mark(const std::string& name) {
    detail::mark_now(name);
}

std::uint64_t trace_clock_ns() {
    // With the tracer off CUPTI is never touched (compute-sanitizer may hold it):
    // no timeline to compare with, so the host's own clock serves.
    static const bool tracing = tracing_off_reason().empty();
    if (!tracing) {
        return static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
                .count());
    }
    return detail::recorder_clock_ns();
}

TracerOverhead measure_tracer_overhead(const std::string& program, int repeats, const std::function<double()>& run) {
    return measure_tracer_overheads(program, repeats, {run}).front();
}

std::vector<TracerOverhead> measure_tracer_overheads(const std::string& program, int repeats,
                                                     const std::vector<std::function<double()>>& runs) {
    if (runs.empty()) {
        return {};
    }
    if (const std::string off = tracing_off_reason(); !off.empty()) {
        throw TimelineUnavailable(off);  // the tracer's cost cannot be measured without it
    }
    std::vector<std::vector<double>> untraced(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        (void)runs[i]();  // warm-up: module load, first touch of the buffers
        for (int r = 0; r < repeats; ++r) {
            untraced[i].push_back(runs[i]());
        }
    }
    // CUPTI's activity records alone, each run framed as a Tracer frames it: earlier
    // records flushed and the first launch's stall taken before, the device waited
    // for and the records flushed after, none of it timed.
    detail::enable_activity_records_only();
    const auto activity_only_run = [](const std::function<double()>& run) {
        detail::flush_activity_records();
        detail::warm_up_recording();
        const double ms = run();
        SL_CHECK(cudaDeviceSynchronize());
        detail::flush_activity_records();
        return ms;
    };
    (void)activity_only_run(runs.front());  // CUPTI's one-time set-up
    std::vector<std::vector<double>> cupti_only(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        for (int r = 0; r < repeats; ++r) {
            cupti_only[i].push_back(activity_only_run(runs[i]));
        }
    }
    (void)record_timeline(program + ": tracer warm-up", [&] { (void)runs.front()(); });
    std::vector<TracerOverhead> overheads;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        std::vector<double> traced;
        for (int r = 0; r < repeats; ++r) {
            (void)record_timeline(program, [&] { traced.push_back(runs[i]()); });
        }
        overheads.push_back({median(untraced[i]), median(cupti_only[i]), median(traced)});
    }
    return overheads;
}

OpLabel::OpLabel(std::string label) : label_(std::move(label)), previous_(detail::exchange_thread_label(&label_)) {
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = label_.c_str();
    nvtxDomainRangePushEx(label_domain(), &attributes);
}

OpLabel::~OpLabel() {
    nvtxDomainRangePop(label_domain());
    detail::exchange_thread_label(previous_);
}

}  // namespace streamlab
