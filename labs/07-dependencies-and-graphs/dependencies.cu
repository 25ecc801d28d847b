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
    // TODO(lab07): Task 1. Chunk by chunk, in order: the chunk's copy in goes to the
    // copy-in stream, its kernel to the compute stream, its copy out to the copy-out stream.
    // Each stage of a chunk may start only after the stage before it of the same chunk has
    // ended, and the host never waits here: the streams wait for each other on the GPU.
    // Right after queuing chunk c's copy out, call after_d2h(c) if you were given one.
    (void)job;
    (void)chunks;
    (void)streams;
    (void)after_d2h;
    // TODO(lab07) end
}

void run_stage_streams(const PipelineJob& job, int chunks) {
    // TODO(lab07): Task 1. Three streams of your own that never wait for the NULL stream,
    // the job queued in them, and return only once every result is in job.output.
    (void)job;
    (void)chunks;
    // TODO(lab07) end
}

void run_with_host_consumer(const PipelineJob& job, int chunks, const Consumer& consumer) {
    // TODO(lab07): Task 2. The pipeline of Task 1, in which the GPU hands each chunk to the
    // consumer the moment its copy out has ended: the host thread that called you never
    // waits for a chunk, and what runs on the consumer's behalf calls no CUDA function.
    // Return once every chunk has been consumed.
    (void)job;
    (void)chunks;
    (void)consumer;
    // TODO(lab07) end
}

void run_graph(const PipelineJob& job, int chunks, int launches) {
    // TODO(lab07): Task 3. Record the pipeline of Task 1 once as a CUDA graph, from an
    // origin stream of your own: the stage streams join the recording from the origin and
    // come back into it before the recording ends. Build the runnable graph once, run it
    // `launches` times one after another, wait for the last run, and release everything.
    (void)job;
    (void)chunks;
    (void)launches;
    // TODO(lab07) end
}

void run_with_urgent_kernel(const UrgentWork& urgent, bool high_priority) {
    // TODO(lab07): Task 4. Ask the GPU which priorities it offers. Hand urgent.fill_gpu a
    // stream of the least of them, then hand urgent.launch a stream of your own: of the
    // greatest priority when high_priority, of the default one otherwise. Return once both
    // kernels have ended.
    (void)urgent;
    (void)high_priority;
    // TODO(lab07) end
}

}  // namespace lab07
