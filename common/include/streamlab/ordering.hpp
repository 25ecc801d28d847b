/// @file ordering.hpp
/// @brief What a CUDA event is ordered after: stream order, cudaStreamWaitEvent
/// and host synchronizations, read from the runtime calls a timeline recorded.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "streamlab/timeline.hpp"

namespace streamlab {

/// The work queued before the last event record, and which of it the event
/// does not wait for.
struct LastEventOrder {
    bool recorded = false;                 ///< False when no event was recorded at all.
    std::size_t event_call = 0;            ///< Index of the last event record in the calls.
    std::size_t work_before = 0;           ///< Work calls made before it.
    std::vector<std::size_t> not_ordered;  ///< Indices of the work calls it does not wait for.

    /// One sentence for a student: which work the event can complete before.
    [[nodiscard]] std::string describe(const std::vector<StreamCall>& calls) const;
};

/// Which of the work queued before the last event record (a timing's `stop`)
/// that event is ordered after. An event recorded in stream S completes after
/// the work queued in S before it; after what S waited for (cudaStreamWaitEvent
/// on an event: the work that event's latest record was ordered after); and after
/// whatever the host had waited for before it was recorded (cudaStreamSynchronize,
/// cudaEventSynchronize, cudaDeviceSynchronize). `calls` are a timeline's
/// stream_calls, in call order. The legacy NULL stream's implicit barrier is not
/// modelled: work joined only through it counts as not ordered.
[[nodiscard]] LastEventOrder order_of_last_event(const std::vector<StreamCall>& calls);

}  // namespace streamlab
