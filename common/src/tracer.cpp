#include "streamlab/tracer.hpp"

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <map>
#include <utility>

#include "activity_recorder.hpp"
#include "streamlab/check.hpp"
#include "streamlab/device.hpp"

namespace streamlab {

namespace {
std::atomic<bool> started_before{false};
}  // namespace

bool tracer_started_before() noexcept { return started_before.load(); }

Tracer::Tracer(std::string program) : program_(std::move(program)), date_(detail::utc_now_iso8601()) {
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

void Tracer::mark(const std::string& name) { detail::mark_now(name); }

Timeline Tracer::finish() {
    if (!recorder_) {
        throw std::logic_error("streamlab::Tracer::finish() was already called");
    }
    // The calls the recorded work made, before this function makes its own.
    std::map<std::string, std::uint64_t> api_calls = recorder_->api_calls();
    // A record gets its timestamps when its work completes: wait for all of it.
    SL_CHECK(cudaDeviceSynchronize());
    recorder_->flush();
    detail::Recording recording = recorder_->collect();
    recorder_.reset();  // stops recording

    Timeline timeline;
    timeline.ops = std::move(recording.ops);
    timeline.marks = std::move(recording.marks);
    timeline.origin_ns = recording.origin_ns;
    timeline.dropped_records = recording.dropped_records;
    timeline.api_calls = std::move(api_calls);
    timeline.program = program_;
    timeline.date = date_;
    int device = 0;
    SL_CHECK(cudaGetDevice(&device));
    timeline.device = query_device_facts(device);
    return timeline;
}

void host_mark(const std::string& name) { detail::mark_now(name); }

OpLabel::OpLabel(std::string label)
    : label_(std::move(label)), previous_(detail::exchange_thread_label(&label_)) {
    nvtxRangePushA(label_.c_str());
}

OpLabel::~OpLabel() {
    nvtxRangePop();
    detail::exchange_thread_label(previous_);
}

}  // namespace streamlab
