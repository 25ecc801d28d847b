#include "wait_side.hpp"

#include <sys/resource.h>

#include <chrono>
#include <utility>

#include "lab09_record.hpp"
#include "streamlab/check.hpp"
#include "streamlab/tracer.hpp"

namespace lab09::course {
namespace {

std::uint64_t timeval_ns(const timeval& t) {
    return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(t.tv_usec) * 1'000ULL;
}

}  // namespace

std::uint64_t process_cpu_ns() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return timeval_ns(usage.ru_utime) + timeval_ns(usage.ru_stime);
}

double WaitCost::cpu_share() const {
    return wall_ns() == 0 ? 0.0 : static_cast<double>(cpu_ns) / static_cast<double>(wall_ns());
}

WaitCost observe_wait(const std::function<void()>& wait) {
    WaitCost cost;
    const std::uint64_t cpu_before = process_cpu_ns();
    cost.called_ns = streamlab::trace_clock_ns();
    wait();
    cost.returned_ns = streamlab::trace_clock_ns();
    const std::uint64_t cpu_after = process_cpu_ns();
    cost.cpu_ns = cpu_after - cpu_before;
    return cost;
}

std::int64_t wake_up_delay_ns(const streamlab::Timeline& timeline, std::uint64_t returned_ns) {
    return delay_after_last_op_ns(timeline, static_cast<std::int64_t>(returned_ns - timeline.origin_ns));
}

WaitJob::WaitJob(const streamlab::DeviceFacts& facts) : WaitJob(streamlab::prepare_pipeline(facts)) {}

WaitJob::WaitJob(streamlab::PreparedPipeline prepared)
    : prepared_(std::move(prepared)), stream_(cudaStreamNonBlocking) {}

WaitJob::WaitJob(std::size_t n, int iterations, std::uint32_t seed)
    : WaitJob(streamlab::PreparedPipeline{streamlab::PipelineMemory(n), iterations}) {
    streamlab::fill_input(prepared_.memory.input.data(), n, seed);
}

void WaitJob::queue(int kernels) {
    streamlab::PipelineMemory& memory = prepared_.memory;
    streamlab::fill_poison(memory.output.data(), memory.size());
    SL_CHECK(cudaMemcpyAsync(memory.device_input.data(), memory.input.data(), memory.input.bytes(),
                             cudaMemcpyHostToDevice, stream()));
    // Every kernel computes the same results from the same input: more kernels
    // only make the work longer.
    for (int k = 0; k < (kernels < 1 ? 1 : kernels); ++k) {
        streamlab::launch_workload(memory.device_input.data(), memory.device_output.data(), memory.size(),
                                   prepared_.iterations, stream());
    }
    SL_CHECK(cudaMemcpyAsync(memory.output.data(), memory.device_output.data(), memory.output.bytes(),
                             cudaMemcpyDeviceToHost, stream()));
}

streamlab::ResultCheck WaitJob::check() const {
    const streamlab::PipelineMemory& memory = prepared_.memory;
    return streamlab::check_workload_output(memory.input.data(), memory.output.data(), memory.size(),
                                            prepared_.iterations);
}

ObservedWait WaitJob::queue_and_wait(int kernels, const std::function<void(cudaStream_t)>& wait) {
    queue(kernels);
    ObservedWait observed;
    observed.cost = observe_wait([&] { wait(stream()); });
    observed.results = check();
    return observed;
}

void WaitJob::warm_up(const std::function<void(cudaStream_t)>& wait) {
    queue(kShortJobKernels);
    wait(stream());
    SL_CHECK(cudaStreamSynchronize(stream()));
}

std::uint64_t WaitJob::measure_ns(int kernels) {
    const streamlab::Event start(cudaEventDefault);
    const streamlab::Event stop(cudaEventDefault);
    float ms = 0.0F;
    for (int run = 0; run < 2; ++run) {
        start.record(stream());
        queue(kernels);
        stop.record(stream());
        stop.synchronize();
        ms = streamlab::elapsed_ms(start, stop);
    }
    return static_cast<std::uint64_t>(static_cast<double>(ms) * 1e6);
}

std::uint64_t WaitJob::host_slice_ns() {
    return measure_ns(kShortJobKernels) / kSlicesPerShortJob;
}

RecordedWait record_wait(WaitJob& job, int kernels, const std::function<void(cudaStream_t)>& wait, HostWork* work) {
    job.warm_up(wait);
    if (work != nullptr) {
        work->reset();
    }
    RecordedWait recorded;
    recorded.timeline =
        streamlab::record_timeline("lab09 wait", [&] { recorded.observed = job.queue_and_wait(kernels, wait); });
    return recorded;
}

HostWork::HostWork(std::uint64_t slice_ns) : slice_ns_(slice_ns), thread_(streamlab::host_thread_id()) {}

void HostWork::slice() {
    // Busy, as real host work would be: the thread computes until the slice's time is up.
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    const Clock::time_point until = start + std::chrono::nanoseconds(slice_ns_);
    Clock::time_point now = start;
    while (now < until) {
        now = Clock::now();
    }
    busy_ns_ += static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count());
    ++slices_;
    if (streamlab::host_thread_id() != thread_) {
        ++slices_elsewhere_;
    }
}

void HostWork::reset() {
    busy_ns_ = 0;
    slices_ = 0;
    slices_elsewhere_ = 0;
}

std::function<void()> HostWork::as_function() {
    return [this] { slice(); };
}

std::uint64_t HostWork::mean_slice_ns() const {
    return slices_ == 0 ? slice_ns_ : busy_ns_ / static_cast<std::uint64_t>(slices_);
}

}  // namespace lab09::course
