/// @file pipeline.hpp
/// @brief The chunked H2D → kernel → D2H pipeline, seen from outside:
/// how much data it moves, the serial run it is compared with, and what a recorded
/// timeline says about its chunks, stage times and distance from the model.
///
/// The pipeline itself is the student's code. Everything here serves the
/// programs that run it and the tests that grade it: the labs' programs and tests,
/// `course demo` and `course bench`.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "streamlab/handles.hpp"
#include "streamlab/model.hpp"
#include "streamlab/timeline.hpp"
#include "streamlab/workload.hpp"

namespace streamlab {

// ---------------------------------------------------------------- the data

/// The most data a pipeline run moves each way: 256 MiB, the size of the article's measurement.
inline constexpr std::size_t kPipelineMaxBytes = std::size_t{256} << 20;

/// How many floats a pipeline run uses on a GPU with `total_memory_bytes` of memory:
/// 256 MiB worth where that is at most an eighth of the memory, otherwise an eighth
/// of it (whole MiB, at least 1 MiB). Input and output then take a quarter at most.
[[nodiscard]] std::size_t pipeline_elements(std::size_t total_memory_bytes);

/// The memory of one pipeline run: pinned host input and output (pinned, so copies
/// can overlap with kernels) and device input and output, `n` floats each.
struct PipelineMemory {
    /// Allocates the four buffers (uninitialised). Needs a GPU.
    explicit PipelineMemory(std::size_t n) : input(n), output(n), device_input(n), device_output(n) {}

    PinnedBuffer<float> input;          ///< Host input, pinned.
    PinnedBuffer<float> output;         ///< Host output, pinned.
    DeviceBuffer<float> device_input;   ///< Device copy of the input.
    DeviceBuffer<float> device_output;  ///< Device results.

    /// Elements per buffer.
    [[nodiscard]] std::size_t size() const noexcept { return input.size(); }
};

/// The memory of a pipeline run on the GPU at hand, and the work to put through it.
struct PreparedPipeline {
    PipelineMemory memory;  ///< pipeline_elements floats each, the input filled (fill_input).
    int iterations = 1;     ///< The workload iterations the run uses.
};

/// Allocates a pipeline run's memory for the GPU `facts` describes, fills its
/// input, and sizes the kernel over all of it to `kernel_to_copy` times as long
/// as its whole H2D copy, measured now (measure_h2d_ms). Needs a GPU.
[[nodiscard]] PreparedPipeline prepare_pipeline(const DeviceFacts& facts, double kernel_to_copy = 1.0);

/// A lab's job over `memory`: `Job` is an aggregate of input, output, device
/// input, device output, element count and workload iterations, in that order
/// (a lab's PipelineJob), filled from the four buffers and `iterations`.
template <typename Job>
[[nodiscard]] Job job_over(PipelineMemory& memory, int iterations) {
    return Job{memory.input.data(),         memory.output.data(), memory.device_input.data(),
               memory.device_output.data(), memory.size(),        iterations};
}

// ---------------------------------------------------------------- the serial reference

/// The whole input through H2D, kernel and D2H in the NULL stream, one after
/// another (the NULL stream's way): what the pipeline is compared with.
struct SerialReference {
    Timeline timeline;    ///< What the GPU did: three ops.
    double event_ms = 0;  ///< Time between CUDA events recorded around the three ops (NULL stream).
    StageTimes stages;    ///< Each stage alone, in ms: the durations of the three ops.
};

/// The serial reference's three ops on `memory`, unrecorded (its output is
/// overwritten): the time between CUDA events around them, in ms.
[[nodiscard]] double run_serial_once(PipelineMemory& memory, int iterations);

/// Runs the serial reference on `memory` (its output is overwritten) with the
/// workload's `iterations`, while a Tracer records it.
/// Throws TimelineUnavailable when no timeline can be recorded. With the tracer off, it
/// throws that before doing anything.
[[nodiscard]] SerialReference run_serial_reference(PipelineMemory& memory, int iterations);

// ------------------------------------------- interference between the copy directions

/// Measures how much H2D and D2H copies slow each other down on this GPU and host
/// (see LinkSharing): copies the whole of `memory` in, then out, then both ways at
/// the same time in two streams, while a Tracer records, and compares each copy
/// beside the other with the same copy alone. The median of five tries. Where
/// the two copies did not run together (a GPU with one copy engine) there is
/// nothing to share and both fractions are 1. `memory.output` is overwritten.
/// Throws TimelineUnavailable when no timeline can be recorded. With the tracer off, it
/// throws that before doing anything.
[[nodiscard]] LinkSharing measure_link_sharing(PipelineMemory& memory);

// ---------------------------------------------------------------- reading a timeline

/// The total time, in ms, that `ops` spent in each stage: all H2D copies, all
/// kernels, all D2H copies. For a serial run these are the stage times the model needs.
[[nodiscard]] StageTimes stage_times(const std::vector<DeviceOp>& ops);

/// How the host issued a pipeline's ops: StageByStage when every H2D copy was
/// issued before the first kernel (and there are several copies), ChunkByChunk
/// otherwise. Correlation ids number the runtime calls in the order they were made.
[[nodiscard]] IssueOrder issue_order(const std::vector<DeviceOp>& ops);

/// Of several recorded runs of the same thing, the one with the median makespan
/// (the upper middle one of an even count): one run can be slowed by anything
/// else the machine does. Throws std::invalid_argument when `runs` is empty.
[[nodiscard]] Timeline median_run(std::vector<Timeline> runs);

/// One chunk's three operations, as the GPU ran them.
struct ChunkOps {
    DeviceOp h2d;     ///< Its copy to the device.
    DeviceOp kernel;  ///< Its kernel.
    DeviceOp d2h;     ///< Its copy back.
};

/// The chunks found in a pipeline's timeline, or why none could be found.
struct PipelineChunks {
    std::vector<ChunkOps> chunks;  ///< In the order their H2D copies were issued; empty on a problem.
    std::string problem;           ///< Empty when the timeline has the pipeline's shape.
};

/// Finds the chunks of a pipelined run: every op must run in a stream the program
/// created, and each stream must hold exactly one H2D copy, one kernel and one D2H
/// copy, issued in that order. Otherwise `problem` says, in one sentence for a
/// student, what the timeline shows instead.
[[nodiscard]] PipelineChunks find_chunks(const std::vector<DeviceOp>& ops);

/// Finds the `chunks` chunks of a pipelined run from the ops themselves, whatever
/// streams they ran in (one stream per chunk, one stream per stage linked by
/// events, ...): the i-th H2D copy issued, the i-th kernel issued and the i-th
/// D2H copy issued form chunk i. `problem` says what is missing when the run did
/// not do `chunks` of each. Ops in the NULL stream count too; whether the streams
/// are laid out one per chunk is find_chunks's question.
[[nodiscard]] PipelineChunks chunks_by_issue_order(const std::vector<DeviceOp>& ops, int chunks);

// ---------------------------------------------------------------- against the model

/// A pipelined run set against its serial reference and the model. Times in ms.
struct PipelineComparison {
    int chunks = 0;                               ///< Chunks of the pipelined run.
    int streams = 0;                              ///< Streams its ops ran in (3 for one stream per stage).
    int copy_engines = 0;                         ///< Copy engines the model assumed (the device's).
    IssueOrder order = IssueOrder::ChunkByChunk;  ///< The pipelined run's issue order.
    StageTimes stages;                            ///< Each stage alone (from the serial run).
    double serial_ms = 0;                         ///< Makespan of the serial run.
    double pipelined_ms = 0;                      ///< Makespan of the pipelined run.
    double model_ms = 0;                          ///< The model's makespan for these chunks, engines and order.
    LinkSharing link;                             ///< How the copy directions share the link (1, 1: not measured).
    double link_model_ms = 0;  ///< The model's makespan when copies also share the link as `link` says.
    double bound_ms = 0;       ///< The busiest unit's total: no chunk count gets below it.
    /// serial_ms / pipelined_ms: what the pipeline gained, measured.
    [[nodiscard]] double speedup() const { return pipelined_ms > 0 ? serial_ms / pipelined_ms : 0.0; }
    /// The model's speedup: the stage times' sum over model_ms.
    [[nodiscard]] double model_speedup() const {
        return model_ms > 0 ? (stages.h2d + stages.kernel + stages.d2h) / model_ms : 0.0;
    }
    /// model_ms / pipelined_ms: 1 when the run is as fast as the model allows.
    [[nodiscard]] double efficiency() const { return pipelined_ms > 0 ? model_ms / pipelined_ms : 0.0; }
    /// link_model_ms / pipelined_ms: the same, against the model that knows the shared link.
    [[nodiscard]] double link_efficiency() const { return pipelined_ms > 0 ? link_model_ms / pipelined_ms : 0.0; }
};

/// The model's ops as device ops (an H2D copy, a kernel or a D2H copy each, times
/// in ns), so that the analysis functions (hidden_copy_fraction, ...) measure
/// the model as they measure a recorded run.
[[nodiscard]] std::vector<DeviceOp> modelled_ops(const std::vector<SimulatedOp>& simulated);

/// Compares a pipelined run of `chunks` chunks with its serial reference. The
/// model is simulate_pipeline with one stream per chunk, the stage times of the
/// serial run, `copy_engines`, and the issue order read from the pipelined run
/// (with two or more copy engines that equals pipeline_model's ideal). The
/// second model, link_model_ms, is the same simulation with the copies sharing
/// the link as `link` says (measure_link_sharing); left at its default it equals
/// the first. Throws std::invalid_argument when chunks or copy_engines is below 1.
[[nodiscard]] PipelineComparison compare_with_model(const Timeline& serial, const Timeline& pipelined, int chunks,
                                                    int copy_engines, const LinkSharing& link = {});

/// The comparison as a few indented lines for a program's output: stage times,
/// serial and pipelined makespans, speedup measured and modelled, efficiency, bound.
[[nodiscard]] std::string describe(const PipelineComparison& comparison);

// ---------------------------------------------------------------- a whole comparison

/// A pipelined run recorded next to its serial reference, on the same data.
struct PipelineRun {
    SerialReference serial;         ///< The serial reference.
    Timeline pipelined;             ///< The pipelined run's timeline.
    ResultCheck result;             ///< The pipelined run's output against the CPU reference.
    PipelineComparison comparison;  ///< The two set against the model.
};

/// Everything a program needs to show a pipeline on the GPU at hand: runs
/// `pipelined(memory, iterations)`, which must split the data into `chunks`
/// chunks, next to the serial reference on the same data, sized for this GPU,
/// and returns the recorded run with the median makespan, its output checked,
/// set against the model (pipeline.cpp says how it is measured).
/// Throws TimelineUnavailable when no timeline can be recorded.
/// With the tracer off (tracing_off_reason), runs `pipelined` once after the
/// warm-up and checks its output, nothing else: `pipelined` is then unrecorded
/// and `serial` and `comparison` are left empty.
[[nodiscard]] PipelineRun record_pipeline_run(int chunks, const std::function<void(PipelineMemory&, int)>& pipelined,
                                              double kernel_to_copy = 1.0);

}  // namespace streamlab
