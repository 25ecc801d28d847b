/// @file two_gpu_timeline.hpp
/// @brief Lab 08's grader questions, asked of recorded ops: what each GPU did,
/// whether the GPUs worked at the same time, whether the hand-off's second GPU
/// waited for the first, and the model's speedup. Plain data in, answers out:
/// no GPU needed (test_two_gpu_timeline_cpu.cpp tests them on made-up timelines).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "streamlab/timeline.hpp"

namespace lab08::course {

/// What one GPU did in a recorded run.
struct GpuWork {
    std::uint32_t device = 0;          ///< The GPU (CUDA device ordinal).
    std::size_t h2d = 0;               ///< Host-to-device copies it ran.
    std::size_t kernels = 0;           ///< Kernels it ran.
    std::size_t d2h = 0;               ///< Device-to-host copies it ran.
    std::size_t peer_copies = 0;       ///< Copies between GPUs its engines ran.
    std::uint64_t h2d_bytes = 0;       ///< Bytes its host-to-device copies moved.
    std::uint64_t d2h_bytes = 0;       ///< Bytes its device-to-host copies moved.
    std::size_t streams = 0;           ///< Distinct streams its ops ran in.
    std::size_t null_stream_ops = 0;   ///< Its ops in the legacy NULL or a per-thread default stream.
    std::size_t unpinned_copies = 0;   ///< Its host copies whose host memory was not recorded as pinned.
    std::uint64_t busy_ns = 0;         ///< Time during which at least one of its ops ran.
    std::uint64_t first_start_ns = 0;  ///< When its first op started.
    std::uint64_t last_end_ns = 0;     ///< When its last op ended.
};

/// What each GPU that ran any of `ops` did, by device ordinal, ascending.
[[nodiscard]] std::vector<GpuWork> work_by_gpu(const std::vector<streamlab::DeviceOp>& ops);

/// The work of GPU `device` in `work` (all counts 0 when it ran nothing).
[[nodiscard]] GpuWork work_of(const std::vector<GpuWork>& work, std::uint32_t device);

/// The time GPUs `a` and `b` were both busy (any op running on each), over the
/// shorter of their two busy times: 1 when the less busy GPU only ever worked
/// while the other did too, 0 when they took turns (or one did nothing).
[[nodiscard]] double busy_together_share(const std::vector<streamlab::DeviceOp>& ops, std::uint32_t a, std::uint32_t b);

/// The same for the host-to-device copies alone: the share of the shorter
/// GPU's copy-in time during which the other GPU copied in too.
[[nodiscard]] double copies_in_together_share(const std::vector<streamlab::DeviceOp>& ops, std::uint32_t a,
                                              std::uint32_t b);

/// One chunk of the hand-off: its copy in on the first GPU, its copy between the
/// GPUs (when one was recorded), its kernel and its copy back on the second GPU.
struct HandoffChunk {
    streamlab::DeviceOp h2d;     ///< On the first GPU.
    streamlab::DeviceOp peer;    ///< GPU to GPU (MemcpyP2P); default when none was recorded.
    streamlab::DeviceOp kernel;  ///< On the second GPU.
    streamlab::DeviceOp d2h;     ///< On the second GPU.
};

/// The hand-off's chunks as recorded, or why they could not be found.
struct HandoffRun {
    std::vector<HandoffChunk> chunks;  ///< In issue order; empty on a problem.
    bool peer_copies = false;          ///< Whether each chunk has a recorded copy between the GPUs.
    std::string problem;               ///< Empty when the records have the hand-off's shape.
};

/// Finds the `chunks` chunks of a hand-off from GPU `from` to GPU `to`: the i-th
/// host-to-device copy issued on `from`, the i-th copy between GPUs, and the i-th
/// kernel and device-to-host copy issued on `to` form chunk i (issue order is the
/// correlation ids' order). Copies between GPUs are optional (none at all: a
/// machine may carry them otherwise), but when there are any there must be one
/// per chunk. `problem` says in one sentence what is missing or out of place.
[[nodiscard]] HandoffRun find_handoff(const std::vector<streamlab::DeviceOp>& ops, std::uint32_t from, std::uint32_t to,
                                      int chunks);

/// The hand-off's waits that the records show broken, one sentence each: a
/// chunk's copy between the GPUs (or, without one, its kernel) that started
/// before its copy in on the first GPU ended, a kernel that started before its
/// chunk's copy between the GPUs ended, a copy back that started before its
/// kernel ended. Two GPUs' clocks may disagree by up to `clock_slack_ns`; a start
/// that early still counts as after. Chunks are numbered from 1.
[[nodiscard]] std::vector<std::string> handoff_wait_problems(const HandoffRun& run, std::uint64_t clock_slack_ns);

/// The model's speedup of the pipeline split evenly over two GPUs against one,
/// from the one-GPU pipeline's makespan on each GPU (`on_first_ms`, the one the
/// speedup is measured against, and `on_second_ms`): each GPU streams half the
/// data through the same pipeline in half the time, over a link of its own, so
/// the two finish after half the slower one's time. 2 for equal GPUs. Throws
/// std::invalid_argument unless both times are positive.
[[nodiscard]] double split_model_speedup(double on_first_ms, double on_second_ms);

}  // namespace lab08::course
