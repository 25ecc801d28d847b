// The recorder of the simulated build (STREAMLAB_SIMULATED_GPU): the same
// ActivityRecorder as activity_recorder.cpp, read from the simulated GPU's log
// (streamlab/simgpu.hpp) instead of CUPTI's records.
//
// The simulator logs every op it schedules and every runtime call the program
// makes, on its simulated host clock; a recording is the part of that log from
// its origin on. Nothing is buffered or lost: there is nothing to flush, no
// record without timestamps, and no other tool that could hold the recorder.
// NVTX ranges are not recorded (NVTX hands them to CUPTI only), so a simulated
// timeline has none.
#include <mutex>
#include <utility>

#include "activity_recorder.hpp"
#include "streamlab/simgpu.hpp"

namespace streamlab::detail {
namespace {

/// What a recording keeps beside the simulator's log: whether one is active,
/// and the host marks it took. The program's threads and the simulator's own
/// (host functions) may both mark, so one mutex guards it.
struct Session {
    std::mutex mutex;
    bool recording = false;
    std::vector<HostMark> marks;  // on the simulated host clock
};

Session& session() {
    static Session instance;
    return instance;
}

/// The simulator's log of this recording: what was called and ran from `origin_ns` on.
simgpu::Log recorded_log(std::uint64_t origin_ns) {
    return simgpu::log_since(origin_ns);
}

/// An op of the log as CUPTI's recorder makes it: named (kernels by their
/// readable name, the rest by their kind), times relative to the origin.
DeviceOp timeline_op(DeviceOp op, std::uint64_t origin_ns) {
    const auto relative = [origin_ns](std::uint64_t t) { return t > origin_ns ? t - origin_ns : 0; };
    if (op.kind == OpKind::Kernel) {
        op.name = demangle(op.name);
    } else if (op.name.empty()) {
        op.name = op_base_name(op.kind);
    }
    op.start_ns = relative(op.start_ns);
    op.end_ns = relative(op.end_ns);
    return op;
}

}  // namespace

void enable_activity_records_only() {
    // The simulator logs whether or not anything records: nothing to turn on, and
    // no cost of recording to measure apart from the rest.
}

ActivityRecorder::ActivityRecorder() {
    Session& s = session();
    {
        const std::lock_guard<std::mutex> lock(s.mutex);
        if (s.recording) {
            throw_already_recording();
        }
    }
    restart_window();
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.recording = true;
}

ActivityRecorder::~ActivityRecorder() {
    stop();
}

void ActivityRecorder::flush() {
    // The log holds every op as soon as the simulator schedules it.
}

void ActivityRecorder::stop() noexcept {
    if (stopped_) {
        return;
    }
    stopped_ = true;
    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.recording = false;
}

void ActivityRecorder::restart_window() {
    origin_ns_ = simgpu::host_now_ns();
    Session& s = session();
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.marks.clear();
}

std::map<std::string, std::uint64_t> ActivityRecorder::api_calls() const {
    return recorded_log(origin_ns_).api_calls;
}

std::map<std::uint64_t, std::uint64_t> ActivityRecorder::api_calls_by_thread() const {
    return recorded_log(origin_ns_).api_calls_by_thread;
}

std::vector<std::uint32_t> ActivityRecorder::devices() const {
    return recorded_log(origin_ns_).devices;
}

std::vector<StreamCall> ActivityRecorder::stream_calls() const {
    return recorded_log(origin_ns_).stream_calls;
}

Timeline ActivityRecorder::collect() const {
    Timeline recording;
    recording.origin_ns = origin_ns_;
    for (DeviceOp& op : recorded_log(origin_ns_).ops) {
        recording.ops.push_back(timeline_op(std::move(op), origin_ns_));
    }
    sort_ops(recording.ops);
    std::vector<HostMark> marks;
    {
        Session& s = session();
        const std::lock_guard<std::mutex> lock(s.mutex);
        marks = s.marks;
    }
    recording.marks = relative_marks(std::move(marks), origin_ns_);
    return recording;
}

void mark_now(const std::string& name) {
    Session& s = session();
    const std::uint64_t now = simgpu::host_now_ns();
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.recording) {
        s.marks.push_back(HostMark{name, now});
    }
}

const std::string* exchange_thread_label(const std::string* label) noexcept {
    // The simulator labels the ops as it logs them, as CUPTI's callbacks do.
    return simgpu::exchange_thread_label(label);
}

const char* recorder_name() noexcept {
    return "the simulated GPU";  // never a GPU's own record: the program's report says so
}

std::uint64_t recorder_clock_ns() {
    return simgpu::host_now_ns();
}

void flush_activity_records() noexcept {
    // Nothing is buffered (see ActivityRecorder::flush).
}

}  // namespace streamlab::detail
