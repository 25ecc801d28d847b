// Lab 06: many chunks, few streams. The input is larger than the pinned
// buffers, so the host fills a small ring of staging buffers piece by piece,
// K streams with a device buffer set each carry the chunks, and the results come
// back into a ring of pinned buffers that the host drains.
#include "lab06.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab06 {

void run_stream(const StreamingJob& job) {
    const int sets = static_cast<int>(job.device.size());
    const int staging_slots = static_cast<int>(job.staging.size());
    const int result_slots = static_cast<int>(job.results.size());

    // Task 1: one non-blocking stream per device set, and per ring buffer an
    // event recorded after the copy that last used it.
    std::vector<streamlab::Stream> streams;
    for (int j = 0; j < sets; ++j) {
        streams.emplace_back(cudaStreamNonBlocking);
    }
    std::vector<streamlab::Event> copied_in;    // per staging buffer: its last H2D copy
    std::vector<streamlab::Event> copied_back;  // per results buffer: its last D2H copy
    for (int s = 0; s < staging_slots; ++s) {
        copied_in.emplace_back(cudaEventDisableTiming);
    }
    for (int r = 0; r < result_slots; ++r) {
        copied_back.emplace_back(cudaEventDisableTiming);
    }

    // Task 3: the host drains chunks in order, each only once its D2H copy has ended.
    int next_drain = 0;
    const auto drain = [&]() {
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, job.chunks, next_drain);
        const int r = next_drain % result_slots;
        copied_back[r].synchronize();
        job.consume(chunk.offset, chunk.count, job.results[r]);
        ++next_drain;
    };
    const auto back_already = [&](int chunk) {  // whether chunk's D2H copy has ended, without waiting
        const cudaError_t status = cudaEventQuery(copied_back[chunk % result_slots].get());
        if (status == cudaErrorNotReady) {
            return false;
        }
        SL_CHECK(status);
        return true;
    };

    // Task 2: the chunk loop. Chunk c uses staging buffer c % S, device set and
    // stream c % K, results buffer c % R.
    for (int c = 0; c < job.chunks; ++c) {
        const streamlab::OpLabel label(std::to_string(c + 1));  // its ops show as H2D_1, K_1, D2H_1, ...
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, job.chunks, c);
        const std::size_t bytes = chunk.count * sizeof(float);
        const int s = c % staging_slots;
        const int r = c % result_slots;
        const DeviceSet& set = job.device[c % sets];
        cudaStream_t stream = streams[c % sets].get();

        // Results that are back already cost no waiting: take them now.
        while (next_drain < c && back_already(next_drain)) {
            drain();
        }
        // Task 3: the staging buffer's last H2D copy has ended before the host writes into it.
        if (c >= staging_slots) {
            copied_in[s].synchronize();
        }
        job.produce(chunk.offset, chunk.count, job.staging[s]);
        // The device set's previous chunk went through the same stream: its kernel
        // (which read set.input) and its D2H copy (which read set.output) come first.
        SL_CHECK(cudaMemcpyAsync(set.input, job.staging[s], bytes, cudaMemcpyHostToDevice, stream));
        copied_in[s].record(stream);
        streamlab::launch_workload(set.input, set.output, chunk.count, job.iterations, stream);
        // Task 3: the results buffer's previous chunk is drained before this copy overwrites it.
        while (next_drain <= c - result_slots) {
            drain();
        }
        SL_CHECK(cudaMemcpyAsync(job.results[r], set.output, bytes, cudaMemcpyDeviceToHost, stream));
        copied_back[r].record(stream);
    }
    while (next_drain < job.chunks) {
        drain();
    }
}

Sweep sweep_chunks(const StreamingJob& job, const std::vector<int>& chunk_counts) {
    // Task 4: each chunk count once, timed on the host clock from the call to the
    // return: the stream starts and ends on the host.
    Sweep sweep;
    double best_ms = 0;
    for (const int chunks : chunk_counts) {
        StreamingJob run = job;
        run.chunks = chunks;
        const auto started = std::chrono::steady_clock::now();
        run_stream(run);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        sweep.points.push_back({chunks, ms});
        if (sweep.best_chunks == 0 || ms < best_ms) {
            sweep.best_chunks = chunks;
            best_ms = ms;
        }
    }
    return sweep;
}

}  // namespace lab06
