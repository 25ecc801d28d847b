#include "streamlab/ordering.hpp"

#include <cstdint>
#include <map>
#include <set>

namespace streamlab {

LastEventOrder order_of_last_event(const std::vector<StreamCall>& calls) {
    LastEventOrder order;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        if (calls[i].call == OrderingCall::EventRecord) {
            order.recorded = true;
            order.event_call = i;
        }
    }
    if (!order.recorded) {
        return order;
    }
    using Work = std::set<std::size_t>;          // indices of work calls
    std::map<std::uint64_t, Work> stream_after;  // what new work in a stream is ordered after
    std::map<std::uint64_t, Work> event_after;   // what an event's latest record is ordered after
    Work host_waited;                            // what the host has seen complete
    Work all_work;
    Work stop_after;
    for (std::size_t i = 0; i <= order.event_call; ++i) {
        const StreamCall& c = calls[i];
        switch (c.call) {
            case OrderingCall::Work:
                stream_after[c.stream].insert(i);
                all_work.insert(i);
                break;
            case OrderingCall::EventRecord: {
                Work after = stream_after[c.stream];
                after.insert(host_waited.begin(), host_waited.end());
                event_after[c.event] = after;
                if (i == order.event_call) {
                    stop_after = after;
                }
                break;
            }
            case OrderingCall::StreamWaitEvent: {
                const Work& waited = event_after[c.event];
                stream_after[c.stream].insert(waited.begin(), waited.end());
                break;
            }
            case OrderingCall::StreamSynchronize: {
                const Work& done = stream_after[c.stream];
                host_waited.insert(done.begin(), done.end());
                break;
            }
            case OrderingCall::EventSynchronize: {
                const Work& done = event_after[c.event];
                host_waited.insert(done.begin(), done.end());
                break;
            }
            case OrderingCall::DeviceSynchronize:
                host_waited = all_work;
                break;
            case OrderingCall::StreamQuery:   // it waits for nothing, whatever it answers
            case OrderingCall::ImplicitSync:  // it may wait, but nothing promises what for
                break;
        }
    }
    order.work_before = all_work.size();
    for (const std::size_t work : all_work) {
        if (stop_after.count(work) == 0) {
            order.not_ordered.push_back(work);
        }
    }
    return order;
}

std::string LastEventOrder::describe(const std::vector<StreamCall>& calls) const {
    if (!recorded) {
        return "no CUDA event was recorded";
    }
    if (not_ordered.empty()) {
        return "the last event recorded waits for all " + std::to_string(work_before) + " work calls queued before it";
    }
    std::string text = "the last event recorded (the call numbered " + std::to_string(event_call + 1) +
                       ") does not wait for " + std::to_string(not_ordered.size()) + " of the " +
                       std::to_string(work_before) + " work calls queued before it:";
    for (const std::size_t work : not_ordered) {
        text += " " + calls[work].function + " (call " + std::to_string(work + 1) + ")";
    }
    return text + "; make its stream wait for every other stream (cudaStreamWaitEvent) before recording it";
}

}  // namespace streamlab
