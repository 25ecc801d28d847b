// Lab 07: dependencies, host functions, graphs, priorities. The pipeline is laid
// out one stream per stage, and events carry each chunk from one stage's stream
// to the next; the host takes each chunk's results from a host function; the
// whole pipeline is captured once into a CUDA graph and replayed; and a small
// kernel in a stream of greater priority gets the next free room on the GPU ahead
// of a long queue of blocks of lower priority.
#include "lab07.hpp"

#include <string>
#include <vector>

#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace lab07 {

void queue_stages(const PipelineJob& job, int chunks, const StageStreams& streams,
                  const std::function<void(int chunk)>& after_d2h) {
    // Task 1: one event per stage boundary is enough. cudaStreamWaitEvent waits
    // for the record the event had when it was called, so the next record of the
    // same event does not disturb a wait already queued. Destroying the events
    // on return is safe too: CUDA frees them once their records have happened.
    const streamlab::Event copied_in(cudaEventDisableTiming);
    const streamlab::Event computed(cudaEventDisableTiming);
    for (int c = 0; c < chunks; ++c) {
        const streamlab::OpLabel label(std::to_string(c + 1));  // its ops show as H2D_1, K_1, D2H_1, ...
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, c);
        const std::size_t bytes = chunk.count * sizeof(float);
        SL_CHECK(cudaMemcpyAsync(job.device_input + chunk.offset, job.input + chunk.offset, bytes,
                                 cudaMemcpyHostToDevice, streams.copy_in));
        copied_in.record(streams.copy_in);
        SL_CHECK(cudaStreamWaitEvent(streams.compute, copied_in.get(), 0));
        streamlab::launch_workload(job.device_input + chunk.offset, job.device_output + chunk.offset, chunk.count,
                                   job.iterations, streams.compute);
        computed.record(streams.compute);
        SL_CHECK(cudaStreamWaitEvent(streams.copy_out, computed.get(), 0));
        SL_CHECK(cudaMemcpyAsync(job.output + chunk.offset, job.device_output + chunk.offset, bytes,
                                 cudaMemcpyDeviceToHost, streams.copy_out));
        if (after_d2h) {
            after_d2h(c);
        }
    }
}

void run_stage_streams(const PipelineJob& job, int chunks) {
    const streamlab::Stream copy_in(cudaStreamNonBlocking);
    const streamlab::Stream compute(cudaStreamNonBlocking);
    const streamlab::Stream copy_out(cudaStreamNonBlocking);
    queue_stages(job, chunks, {copy_in.get(), compute.get(), copy_out.get()});
    // The last D2H copy is queued after every other one in copy_out, which waits
    // (through the events) for everything before it.
    copy_out.synchronize();
}

void run_with_host_consumer(const PipelineJob& job, int chunks, const Consumer& consumer) {
    const streamlab::Stream copy_in(cudaStreamNonBlocking);
    const streamlab::Stream compute(cudaStreamNonBlocking);
    const streamlab::Stream copy_out(cudaStreamNonBlocking);
    // Task 2: a host function gets one pointer. Each chunk's pointer must stay
    // valid until its host function has run, so they live here until the end.
    struct Delivery {
        const Consumer* consumer;
        int chunk;
    };
    std::vector<Delivery> deliveries;
    deliveries.reserve(static_cast<std::size_t>(chunks));  // no reallocation: the pointers below stay valid
    queue_stages(job, chunks, {copy_in.get(), compute.get(), copy_out.get()}, [&](int c) {
        deliveries.push_back({&consumer, c});
        // Runs on a thread of CUDA's own once the D2H copy before it in copy_out
        // has ended; it calls no CUDA function (CUDA forbids it there).
        SL_CHECK(cudaLaunchHostFunc(
            copy_out.get(),
            [](void* data) {
                const auto* delivery = static_cast<const Delivery*>(data);
                delivery->consumer->consume(delivery->chunk);
            },
            &deliveries.back()));
    });
    copy_out.synchronize();  // the last host function has returned
}

void run_graph(const PipelineJob& job, int chunks, int launches) {
    const streamlab::Stream origin(cudaStreamNonBlocking);
    const streamlab::Stream copy_in(cudaStreamNonBlocking);
    const streamlab::Stream compute(cudaStreamNonBlocking);
    const streamlab::Stream copy_out(cudaStreamNonBlocking);
    const streamlab::Event forked(cudaEventDisableTiming);
    const streamlab::Event joined(cudaEventDisableTiming);

    // Task 3, the capture: nothing runs; every call below is recorded as a node.
    // The fork brings the stage streams into the capture; the join brings them
    // back, so that ending the capture in the origin stream finds no loose end.
    cudaGraph_t graph = nullptr;
    SL_CHECK(cudaStreamBeginCapture(origin.get(), cudaStreamCaptureModeThreadLocal));
    forked.record(origin.get());
    for (cudaStream_t stage : {copy_in.get(), compute.get(), copy_out.get()}) {
        SL_CHECK(cudaStreamWaitEvent(stage, forked.get(), 0));
    }
    queue_stages(job, chunks, {copy_in.get(), compute.get(), copy_out.get()});
    for (cudaStream_t stage : {copy_in.get(), compute.get(), copy_out.get()}) {
        joined.record(stage);
        SL_CHECK(cudaStreamWaitEvent(origin.get(), joined.get(), 0));
    }
    SL_CHECK(cudaStreamEndCapture(origin.get(), &graph));

    // Instantiated once, launched many times: the cost of building the graph is paid once.
    cudaGraphExec_t instance = nullptr;
    const cudaError_t instantiated = cudaGraphInstantiate(&instance, graph, 0);
    if (instantiated != cudaSuccess) {
        (void)cudaGraphDestroy(graph);
        SL_CHECK(instantiated);
    }
    for (int launch = 0; launch < launches; ++launch) {
        SL_CHECK(cudaGraphLaunch(instance, origin.get()));
    }
    origin.synchronize();
    SL_CHECK(cudaGraphExecDestroy(instance));
    SL_CHECK(cudaGraphDestroy(graph));
}

void run_with_urgent_kernel(const UrgentWork& urgent, bool high_priority) {
    // Task 4: the greatest priority is the lowest number. Both streams exist before
    // the background starts, so that the urgent launch follows it at once.
    int least = 0;
    int greatest = 0;
    SL_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    const streamlab::Stream background(cudaStreamNonBlocking, least);
    const streamlab::Stream urgent_stream =
        high_priority ? streamlab::Stream(cudaStreamNonBlocking, greatest) : streamlab::Stream(cudaStreamNonBlocking);
    urgent.fill_gpu(background.get());
    urgent.launch(urgent_stream.get());
    urgent_stream.synchronize();
    background.synchronize();
}

}  // namespace lab07
