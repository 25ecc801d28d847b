// Lab 08: two GPUs. Pinned memory that every GPU treats as pinned; the chunked
// pipeline split over the GPUs, each with streams of its own and its own link
// to the host; and a hand-off in which one GPU takes the input in and the other
// processes it, the second GPU's stream waiting for the first GPU's event.
#include "lab08.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab08 {

namespace {

/// Makes `device` current for as long as it lives, then the device that was current before.
class CurrentDevice {
public:
    explicit CurrentDevice(int device) {
        SL_CHECK(cudaGetDevice(&previous_));
        SL_CHECK(cudaSetDevice(device));
    }
    ~CurrentDevice() { SL_CHECK_NOEXCEPT(cudaSetDevice(previous_)); }
    CurrentDevice(const CurrentDevice&) = delete;
    CurrentDevice& operator=(const CurrentDevice&) = delete;

private:
    int previous_ = 0;
};

}  // namespace

float* allocate_portable(std::size_t n) {
    // Task 1: pinned, and pinned for every GPU's copies, not only the current one's.
    void* data = nullptr;
    SL_CHECK(cudaHostAlloc(&data, n * sizeof(float), cudaHostAllocPortable));
    return static_cast<float*>(data);
}

void free_portable(float* data) {
    // Task 1.
    if (data != nullptr) {
        SL_CHECK(cudaFreeHost(data));
    }
}

void run_split(const SplitJob& job) {
    const int gpus = static_cast<int>(job.gpus.size());
    const CurrentDevice restore(job.gpus.empty() ? 0 : job.gpus.front().device);

    // Task 2: a stream belongs to the device that is current when it is created,
    // so each GPU's streams are created with that GPU current.
    std::vector<std::vector<streamlab::Stream>> streams(static_cast<std::size_t>(gpus));
    for (int g = 0; g < gpus; ++g) {
        SL_CHECK(cudaSetDevice(job.gpus[static_cast<std::size_t>(g)].device));
        for (int s = 0; s < job.streams; ++s) {
            streams[static_cast<std::size_t>(g)].emplace_back(cudaStreamNonBlocking);
        }
    }

    // Task 2: every GPU's chunks queued, GPU by GPU, before the host waits for any.
    for (int g = 0; g < gpus; ++g) {
        const GpuPart& gpu = job.gpus[static_cast<std::size_t>(g)];
        const streamlab::ChunkRange share = streamlab::chunk_range(job.n, gpus, g);
        SL_CHECK(cudaSetDevice(gpu.device));  // kernels launch on the current device
        for (int c = 0; c < job.chunks; ++c) {
            const streamlab::OpLabel label(std::to_string(c + 1));
            const streamlab::ChunkRange chunk = streamlab::chunk_range(share.count, job.chunks, c);
            const std::size_t bytes = chunk.count * sizeof(float);
            cudaStream_t stream = streams[static_cast<std::size_t>(g)][static_cast<std::size_t>(c % job.streams)].get();
            float* in = gpu.device_input + chunk.offset;
            float* out = gpu.device_output + chunk.offset;
            SL_CHECK(
                cudaMemcpyAsync(in, job.input + share.offset + chunk.offset, bytes, cudaMemcpyHostToDevice, stream));
            streamlab::launch_workload(in, out, chunk.count, job.iterations, stream);
            SL_CHECK(
                cudaMemcpyAsync(job.output + share.offset + chunk.offset, out, bytes, cudaMemcpyDeviceToHost, stream));
        }
    }

    // Task 2: now wait for every stream of every GPU.
    for (auto& gpu_streams : streams) {
        for (streamlab::Stream& stream : gpu_streams) {
            stream.synchronize();
        }
    }
}

void run_handoff(const HandoffJob& job) {
    const CurrentDevice restore(job.from.device);

    // Task 3: direct access between the GPUs where the machine allows it, in
    // both directions (enabling it twice is an error CUDA reports, and harmless).
    const std::array<std::pair<int, int>, 2> directions{
        {{job.from.device, job.to.device}, {job.to.device, job.from.device}}};
    for (const auto& [here, there] : directions) {
        int possible = 0;
        SL_CHECK(cudaDeviceCanAccessPeer(&possible, here, there));
        if (possible != 0) {
            SL_CHECK(cudaSetDevice(here));
            const cudaError_t enabled = cudaDeviceEnablePeerAccess(there, 0);
            if (enabled == cudaErrorPeerAccessAlreadyEnabled) {
                (void)cudaGetLastError();  // clears the error CUDA keeps for the next call
            } else {
                SL_CHECK(enabled);
            }
        }
    }

    // Task 3: a stream and an event per chunk on the first GPU, a stream on the second.
    SL_CHECK(cudaSetDevice(job.from.device));
    streamlab::Stream in_stream(cudaStreamNonBlocking);
    std::vector<streamlab::Event> copied_in;
    for (int c = 0; c < job.chunks; ++c) {
        copied_in.emplace_back(cudaEventDisableTiming);
    }
    SL_CHECK(cudaSetDevice(job.to.device));
    streamlab::Stream work_stream(cudaStreamNonBlocking);

    for (int c = 0; c < job.chunks; ++c) {
        const streamlab::OpLabel label(std::to_string(c + 1));
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, job.chunks, c);
        const std::size_t bytes = chunk.count * sizeof(float);
        SL_CHECK(cudaSetDevice(job.from.device));
        SL_CHECK(cudaMemcpyAsync(job.from.device_input + chunk.offset, job.input + chunk.offset, bytes,
                                 cudaMemcpyHostToDevice, in_stream.get()));
        copied_in[static_cast<std::size_t>(c)].record(in_stream.get());
        // The second GPU's stream waits, on the GPU, for the first GPU's copy.
        SL_CHECK(cudaSetDevice(job.to.device));
        SL_CHECK(cudaStreamWaitEvent(work_stream.get(), copied_in[static_cast<std::size_t>(c)].get(), 0));
        SL_CHECK(cudaMemcpyPeerAsync(job.to.device_input + chunk.offset, job.to.device,
                                     job.from.device_input + chunk.offset, job.from.device, bytes, work_stream.get()));
        streamlab::launch_workload(job.to.device_input + chunk.offset, job.to.device_output + chunk.offset, chunk.count,
                                   job.iterations, work_stream.get());
        SL_CHECK(cudaMemcpyAsync(job.output + chunk.offset, job.to.device_output + chunk.offset, bytes,
                                 cudaMemcpyDeviceToHost, work_stream.get()));
    }
    work_stream.synchronize();
}

}  // namespace lab08
