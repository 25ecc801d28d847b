/// @file priority_side.hpp
/// @brief Lab 07's course side for Task 4: a background kernel that keeps every SM
/// full of blocks with a long queue of blocks behind them, the small urgent kernel,
/// and what the timeline says about the urgent kernel's wait. The program and the
/// recording hand the UrgentWork to your code; your code only chooses the streams.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab07.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/timeline.hpp"

namespace lab07::course {

/// The labels of the two kernels' ops on the timeline.
inline constexpr const char* kUrgentLabel = "urgent";
inline constexpr const char* kBackgroundLabel = "background";

/// How much longer than the GPU holds at once the background's queue of blocks is:
/// the background kernel has kBackgroundWaves times as many blocks as fit on the
/// GPU together, so it runs in that many waves, one after another.
inline constexpr int kBackgroundWaves = 8;

/// The background kernel and the urgent kernel, sized from the device at hand.
class PriorityDemo {
public:
    /// Sizes the background: blocks = SMs × the background kernel's resident blocks
    /// per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor) × kBackgroundWaves,
    /// each block holding its SM room for many times the urgent kernel's own time.
    PriorityDemo();

    /// The UrgentWork your code calls.
    [[nodiscard]] UrgentWork work();

    /// When the urgent kernel was last launched, on the timeline's clock, relative to `origin_ns`.
    [[nodiscard]] std::uint64_t launched_ns(std::uint64_t origin_ns) const;

    /// "8448 blocks (132 SMs × 8 × 8 waves), each 0.123 ms": the background's size, for a printout.
    [[nodiscard]] std::string describe() const;

private:
    int sms_ = 0;
    int blocks_per_sm_ = 0;
    std::uint64_t block_ns_ = 0;
    streamlab::PinnedBuffer<unsigned int> started_;  ///< Set by the background kernel's first block.
    streamlab::DeviceBuffer<float> input_, output_;
    std::uint64_t launched_ns_ = 0;
};

/// What one recorded run of Task 4 shows: the background kernel and how long after
/// its start the urgent kernel started.
struct UrgentWait {
    std::string problem;              ///< Why nothing can be measured ("" when the rest is set).
    std::uint64_t background_ns = 0;  ///< The background kernel's duration.
    std::uint64_t wait_ns = 0;        ///< The urgent kernel's start minus the background kernel's.
    /// wait_ns / background_ns: the share of the background's run the urgent kernel waited.
    [[nodiscard]] double share() const {
        return background_ns == 0 ? 0.0 : static_cast<double>(wait_ns) / static_cast<double>(background_ns);
    }
};

/// The first kernel in `ops` labelled `label`, or nullptr.
[[nodiscard]] inline const streamlab::DeviceOp* labelled_kernel(const std::vector<streamlab::DeviceOp>& ops,
                                                                const char* label) {
    for (const streamlab::DeviceOp& op : ops) {
        if (op.kind == streamlab::OpKind::Kernel && op.label == label) {
            return &op;
        }
    }
    return nullptr;
}

/// The urgent kernel's wait in `timeline`, given its launch mark (`launched_ns`,
/// relative to the timeline's origin); a problem when either kernel is missing or
/// the urgent kernel was launched only after the background kernel had ended. (An
/// urgent kernel that starts before the background shows no wait either way, and so
/// no difference between the priorities.) Inline: the judges, which read a
/// recorded timeline and link no course side, ask it too.
[[nodiscard]] inline UrgentWait urgent_wait(const streamlab::Timeline& timeline, std::uint64_t launched_ns) {
    UrgentWait wait;
    const streamlab::DeviceOp* background = labelled_kernel(timeline.ops, kBackgroundLabel);
    const streamlab::DeviceOp* urgent = labelled_kernel(timeline.ops, kUrgentLabel);
    if (background == nullptr || urgent == nullptr) {
        wait.problem = std::string("the timeline has no ") + (background == nullptr ? "background" : "urgent") +
                       " kernel: call urgent.fill_gpu, then urgent.launch, once each";
    } else if (launched_ns >= background->end_ns) {
        wait.problem =
            "the urgent kernel was launched only after the background kernel had ended: launch it right "
            "after urgent.fill_gpu returns, and wait for the streams only then";
    } else {
        wait.background_ns = background->duration_ns();
        // From the background's start, not from the launch: a launch held back on the
        // host can only lengthen it, and host and GPU clocks need not agree to the microsecond.
        wait.wait_ns = urgent->start_ns > background->start_ns ? urgent->start_ns - background->start_ns : 0;
    }
    return wait;
}

}  // namespace lab07::course
