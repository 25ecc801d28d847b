/// @file batches.hpp
/// @brief Batch runs (one stream, the host working meanwhile) seen from outside: the host buffers, the host's own
/// work with the marks it leaves on the timeline, a kernel that keeps another
/// stream busy, and what a recorded timeline says about each batch.
///
/// The batch loop itself is the student's code. Everything here serves
/// the lab's program and its tests, so that the host work they time is theirs,
/// never the student's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "streamlab/device.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/record.hpp"
#include "streamlab/timeline.hpp"
#include "streamlab/workload.hpp"

namespace streamlab {

// ---------------------------------------------------------------- the host buffers

/// Host input and output buffers of `count` batches, `n` floats each: pinned
/// (cudaMallocHost) or ordinary pageable memory. The inputs are consecutive
/// slices of one seeded input (fill_input's `first`): batch b holds its elements
/// b * n to (b + 1) * n - 1, so one output sample over count * n elements in `count`
/// chunks (record.hpp) covers every batch.
class BatchBuffers {
public:
    /// Allocates the buffers and calls reset(true); `seed` is the input's (fill_input). Pinned memory needs a GPU.
    BatchBuffers(int count, std::size_t n, bool pinned, std::uint32_t seed = 1);
    BatchBuffers(const BatchBuffers&) = delete;             ///< Owns its memory: never copied.
    BatchBuffers& operator=(const BatchBuffers&) = delete;  ///< Owns its memory: never copied.
    BatchBuffers(BatchBuffers&&) = default;                 ///< Takes over the memory.
    BatchBuffers& operator=(BatchBuffers&&) = default;      ///< Takes over the memory.
    ~BatchBuffers() = default;                              ///< Frees the memory.

    /// Number of batches.
    [[nodiscard]] int count() const noexcept { return static_cast<int>(inputs_.size()); }
    /// Floats per buffer.
    [[nodiscard]] std::size_t size() const noexcept { return n_; }
    /// Whether the buffers are pinned.
    [[nodiscard]] bool pinned() const noexcept { return pinned_; }
    /// The input's seed (fill_input).
    [[nodiscard]] std::uint32_t seed() const noexcept { return seed_; }
    /// Batch `batch`'s input.
    [[nodiscard]] float* input(int batch) const { return inputs_.at(static_cast<std::size_t>(batch)); }
    /// Batch `batch`'s output.
    [[nodiscard]] float* output(int batch) const { return outputs_.at(static_cast<std::size_t>(batch)); }

    /// Fills batch `batch`'s input with its slice of the seeded input (fill_input(input, n, seed, batch * n)).
    void prepare_input(int batch);
    /// Before a run: every output poisoned (NaN); batch 0's input prepared, and
    /// the others too when `prepare_all` (otherwise poisoned, for the host to
    /// prepare while the run goes on).
    void reset(bool prepare_all);
    /// Batch `batch`'s output against the CPU reference for its input.
    [[nodiscard]] ResultCheck check(int batch, int iterations) const;
    /// Every batch's output, one after the other, sampled for a record
    /// (record::sample_output): the inputs are consecutive slices of one seeded
    /// input, so this is one run over count() * size() elements in count() chunks.
    [[nodiscard]] record::OutputSample sample_outputs(int iterations) const;

private:
    std::size_t n_ = 0;
    bool pinned_ = false;
    std::uint32_t seed_ = 1;
    std::vector<PinnedBuffer<float>> pinned_memory_;
    std::vector<std::vector<float>> pageable_memory_;
    std::vector<float*> inputs_;
    std::vector<float*> outputs_;
};

// ---------------------------------------------------------------- the host's own work

/// The host mark set when control comes back after batch `batch` was queued: "batch 1 queued".
[[nodiscard]] std::string batch_queued_mark(int batch);
/// The host mark set when the host's work during batch `batch` ends: "host work 1 done".
[[nodiscard]] std::string host_work_done_mark(int batch);

/// Host work for a batch run, called with the batch number: marks
/// batch_queued_mark(b); when `prepare_next`, prepares batch b + 1's input (if
/// there is one) in `buffers`; marks host_work_done_mark(b). `buffers` must
/// outlive the returned function.
[[nodiscard]] std::function<void(int)> marked_host_work(BatchBuffers& buffers, bool prepare_next);

// ---------------------------------------------------------------- another stream's work

/// The label of the background kernel's op on the timeline.
inline constexpr const char* kBackgroundLabel = "background";

/// A kernel of about `ms` milliseconds on a quarter of the SMs, in a non-blocking
/// stream of its own, labelled kBackgroundLabel: work in other streams can run
/// beside it, and a wait for the whole device has to wait for it.
class BackgroundKernel {
public:
    /// Sizes the kernel on this device (a few measured launches). Needs a GPU.
    BackgroundKernel(double ms, const DeviceFacts& facts);
    /// Queues the kernel and returns at once.
    void launch() const;

private:
    static constexpr std::size_t kElements = std::size_t{1} << 20;
    Stream stream_;
    DeviceBuffer<float> input_;
    DeviceBuffer<float> output_;
    int max_blocks_ = 1;
    int iterations_ = 1;
};

// ---------------------------------------------------------------- reading a batch run's timeline

/// One batch as the timeline shows it.
struct BatchOnTimeline {
    DeviceOp h2d;                    ///< Its copy to the device.
    DeviceOp kernel;                 ///< Its kernel.
    DeviceOp d2h;                    ///< Its copy back.
    std::uint64_t queued_ns = 0;     ///< When control came back to the host (batch_queued_mark).
    std::uint64_t host_done_ns = 0;  ///< When the host's work ended (host_work_done_mark).

    /// Whether control came back before the batch's last op (its D2H copy) ended.
    [[nodiscard]] bool device_busy_on_return() const { return queued_ns < d2h.end_ns; }
    /// How long the host's work took.
    [[nodiscard]] std::uint64_t host_work_ns() const { return host_done_ns - queued_ns; }
    /// From the H2D copy's start to the D2H copy's end.
    [[nodiscard]] std::uint64_t device_span_ns() const { return d2h.end_ns - h2d.start_ns; }
    /// Time during which the host's work and one of the batch's ops ran at once.
    [[nodiscard]] std::uint64_t host_device_overlap_ns() const;
};

/// The batches found in a timeline, or why they could not be found.
struct BatchesOnTimeline {
    std::vector<BatchOnTimeline> batches;  ///< In order; empty on a problem.
    std::string problem;                   ///< Empty when every batch was found.
};

/// Finds `count` batches in a batch run's timeline: among the ops without a
/// label (labelled ops, such as the background kernel, belong to the grader),
/// batch b is the b-th H2D copy, kernel and D2H copy by start, and its marks
/// are batch_queued_mark(b) and host_work_done_mark(b). Every copy must move
/// `bytes`. Otherwise `problem` says, in one sentence, what the timeline shows instead.
[[nodiscard]] BatchesOnTimeline find_batches(const Timeline& timeline, int count, std::uint64_t bytes);

/// The ops without a label: the batch run's own, without the grader's.
[[nodiscard]] std::vector<DeviceOp> unlabelled_ops(const std::vector<DeviceOp>& ops);

}  // namespace streamlab
