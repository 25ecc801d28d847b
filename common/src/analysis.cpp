#include "streamlab/analysis.hpp"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>

namespace streamlab {

namespace {

template <typename Keep>
std::vector<Interval> intervals_where(const std::vector<DeviceOp>& ops, Keep keep) {
    std::vector<Interval> intervals;
    for (const DeviceOp& op : ops) {
        if (keep(op)) {
            intervals.push_back({op.start_ns, op.end_ns});
        }
    }
    return intervals;
}

std::vector<Interval> intervals_of_unit(const std::vector<DeviceOp>& ops, Unit unit) {
    return intervals_where(ops, [unit](const DeviceOp& op) { return unit_of(op.kind) == unit; });
}

std::vector<Interval> copy_intervals(const std::vector<DeviceOp>& ops) {
    return intervals_where(ops, [](const DeviceOp& op) {
        const Unit unit = unit_of(op.kind);
        return unit == Unit::CopyH2D || unit == Unit::CopyD2H;
    });
}

std::vector<DeviceOp> sorted_by_start(std::vector<DeviceOp> ops) {
    std::stable_sort(ops.begin(), ops.end(),
                     [](const DeviceOp& a, const DeviceOp& b) { return a.start_ns < b.start_ns; });
    return ops;
}

}  // namespace

std::vector<Interval> merge_intervals(std::vector<Interval> intervals) {
    for (const Interval& interval : intervals) {
        if (interval.end_ns < interval.start_ns) {
            throw std::invalid_argument("interval ends (" + std::to_string(interval.end_ns) + ") before it starts (" +
                                        std::to_string(interval.start_ns) + ")");
        }
    }
    std::sort(intervals.begin(), intervals.end(),
              [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
    std::vector<Interval> merged;
    for (const Interval& next : intervals) {
        if (next.end_ns == next.start_ns) {
            continue;  // covers no time
        }
        // Sorted by start, so `next` can only extend the last merged interval or begin a new one.
        if (!merged.empty() && next.start_ns <= merged.back().end_ns) {
            merged.back().end_ns = std::max(merged.back().end_ns, next.end_ns);
        } else {
            merged.push_back(next);
        }
    }
    return merged;
}

std::uint64_t total_length(const std::vector<Interval>& intervals) {
    std::uint64_t length = 0;
    for (const Interval& interval : merge_intervals(intervals)) {
        length += interval.end_ns - interval.start_ns;
    }
    return length;
}

std::uint64_t intersection_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    const std::vector<Interval> left = merge_intervals(a);
    const std::vector<Interval> right = merge_intervals(b);
    // Walk both sorted lists together; after each step drop the interval that ends first,
    // since it cannot meet anything further along the other list.
    std::uint64_t length = 0;
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < left.size() && j < right.size()) {
        const std::uint64_t start = std::max(left[i].start_ns, right[j].start_ns);
        const std::uint64_t end = std::min(left[i].end_ns, right[j].end_ns);
        if (start < end) {
            length += end - start;
        }
        if (left[i].end_ns < right[j].end_ns) {
            ++i;
        } else {
            ++j;
        }
    }
    return length;
}

Unit unit_of(OpKind kind) {
    switch (kind) {
        case OpKind::Kernel:
            return Unit::Compute;
        case OpKind::MemcpyH2D:
            return Unit::CopyH2D;
        case OpKind::MemcpyD2H:
            return Unit::CopyD2H;
        case OpKind::MemcpyD2D:
        case OpKind::MemcpyP2P:
        case OpKind::MemcpyOther:
        case OpKind::Memset:
            break;
    }
    return Unit::Other;
}

std::uint64_t makespan_ns(const std::vector<DeviceOp>& ops) {
    if (ops.empty()) {
        return 0;
    }
    std::uint64_t first_start = ops.front().start_ns;
    std::uint64_t last_end = ops.front().end_ns;
    for (const DeviceOp& op : ops) {
        first_start = std::min(first_start, op.start_ns);
        last_end = std::max(last_end, op.end_ns);
    }
    return last_end - first_start;
}

std::uint64_t event_record_span_ns(const Timeline& timeline) {
    std::vector<std::uint64_t> recorded;
    for (const StreamCall& call : timeline.stream_calls) {
        if (call.call == OrderingCall::EventRecord) {
            recorded.push_back(call.time_ns);
        }
    }
    if (recorded.size() < 2) {
        return makespan_ns(timeline.ops);
    }
    std::uint64_t begins = recorded.front();
    std::uint64_t ends = recorded.back();
    for (const DeviceOp& op : timeline.ops) {
        begins = std::min(begins, op.start_ns);
        ends = std::max(ends, op.end_ns);
    }
    return ends - begins;
}

std::uint64_t busy_ns(const std::vector<DeviceOp>& ops, Unit unit) {
    return total_length(intervals_of_unit(ops, unit));
}

std::uint64_t copy_compute_overlap_ns(const std::vector<DeviceOp>& ops) {
    return intersection_length(copy_intervals(ops), intervals_of_unit(ops, Unit::Compute));
}

std::uint64_t h2d_d2h_overlap_ns(const std::vector<DeviceOp>& ops) {
    return intersection_length(intervals_of_unit(ops, Unit::CopyH2D), intervals_of_unit(ops, Unit::CopyD2H));
}

std::uint64_t kernel_overlap_ns(const std::vector<DeviceOp>& ops) {
    // Sweep along time: +1 where a kernel starts, -1 where one ends. Between two
    // consecutive event times the number of running kernels is constant, so that
    // stretch counts when the number is at least two.
    std::vector<std::pair<std::uint64_t, int>> events;
    for (const DeviceOp& op : ops) {
        if (op.kind == OpKind::Kernel) {
            events.emplace_back(op.start_ns, +1);
            events.emplace_back(op.end_ns, -1);
        }
    }
    std::sort(events.begin(), events.end());
    std::uint64_t overlap = 0;
    int running = 0;
    std::uint64_t previous_time = events.empty() ? 0 : events.front().first;
    for (const auto& [time, change] : events) {
        if (running >= 2) {
            overlap += time - previous_time;
        }
        running += change;
        previous_time = time;
    }
    return overlap;
}

double hidden_copy_fraction(const std::vector<DeviceOp>& ops) {
    const std::uint64_t copy_time = total_length(copy_intervals(ops));
    if (copy_time == 0) {
        return 0.0;
    }
    return static_cast<double>(copy_compute_overlap_ns(ops)) / static_cast<double>(copy_time);
}

std::size_t distinct_streams(const std::vector<DeviceOp>& ops) {
    std::set<std::pair<std::uint32_t, std::uint32_t>> streams;  // (GPU, stream): stream ids are each GPU's own
    for (const DeviceOp& op : ops) {
        streams.insert({op.device_id, op.stream_id});
    }
    return streams.size();
}

std::set<std::uint32_t> streams_of(const std::vector<DeviceOp>& ops, OpKind kind) {
    std::set<std::uint32_t> streams;
    for (const DeviceOp& op : ops) {
        if (op.kind == kind) {
            streams.insert(op.stream_id);
        }
    }
    return streams;
}

std::size_t null_stream_ops(const std::vector<DeviceOp>& ops) {
    return static_cast<std::size_t>(std::count_if(ops.begin(), ops.end(), [](const DeviceOp& op) {
        return op.stream_kind == StreamKind::LegacyNull || op.stream_kind == StreamKind::PerThreadDefault;
    }));
}

std::vector<StreamCall> implicit_syncs_while_busy(const Timeline& timeline) {
    std::vector<StreamCall> found;
    for (const StreamCall& call : timeline.stream_calls) {
        if (call.call != OrderingCall::ImplicitSync) {
            continue;
        }
        const bool busy = std::any_of(timeline.ops.begin(), timeline.ops.end(), [&](const DeviceOp& op) {
            return op.start_ns <= call.time_ns && call.time_ns < op.end_ns;
        });
        if (busy) {
            found.push_back(call);
        }
    }
    return found;
}

bool ended_before(const DeviceOp& a, const DeviceOp& b) {
    return a.end_ns <= b.start_ns;
}

double median(std::vector<double> values) {
    if (values.empty()) {
        throw std::invalid_argument("median of no values");
    }
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

bool overlaps(const DeviceOp& a, const DeviceOp& b) {
    return std::max(a.start_ns, b.start_ns) < std::min(a.end_ns, b.end_ns);
}

std::vector<DeviceOp> ops_of_kind(const std::vector<DeviceOp>& ops, OpKind kind) {
    std::vector<DeviceOp> selected;
    std::copy_if(ops.begin(), ops.end(), std::back_inserter(selected),
                 [kind](const DeviceOp& op) { return op.kind == kind; });
    return sorted_by_start(std::move(selected));
}

std::vector<DeviceOp> ops_in_stream(const std::vector<DeviceOp>& ops, std::uint32_t stream_id) {
    std::vector<DeviceOp> selected;
    std::copy_if(ops.begin(), ops.end(), std::back_inserter(selected),
                 [stream_id](const DeviceOp& op) { return op.stream_id == stream_id; });
    return sorted_by_start(std::move(selected));
}

std::set<std::uint32_t> devices_of(const std::vector<DeviceOp>& ops) {
    std::set<std::uint32_t> devices;
    for (const DeviceOp& op : ops) {
        devices.insert(op.device_id);
    }
    return devices;
}

std::vector<DeviceOp> ops_on_device(const std::vector<DeviceOp>& ops, std::uint32_t device) {
    std::vector<DeviceOp> selected;
    std::copy_if(ops.begin(), ops.end(), std::back_inserter(selected),
                 [device](const DeviceOp& op) { return op.device_id == device; });
    return sorted_by_start(std::move(selected));
}

TimelineSummary summarize(const std::vector<DeviceOp>& ops) {
    TimelineSummary summary;
    summary.makespan_ns = makespan_ns(ops);
    summary.busy_h2d_ns = busy_ns(ops, Unit::CopyH2D);
    summary.busy_d2h_ns = busy_ns(ops, Unit::CopyD2H);
    summary.busy_compute_ns = busy_ns(ops, Unit::Compute);
    summary.copy_compute_overlap_ns = copy_compute_overlap_ns(ops);
    summary.h2d_d2h_overlap_ns = h2d_d2h_overlap_ns(ops);
    summary.kernel_overlap_ns = kernel_overlap_ns(ops);
    summary.hidden_copy_fraction = hidden_copy_fraction(ops);
    summary.distinct_streams = distinct_streams(ops);
    summary.null_stream_ops = null_stream_ops(ops);
    summary.op_count = ops.size();
    return summary;
}

std::string summary_to_json(const TimelineSummary& summary) {
    const nlohmann::ordered_json object{
        {"makespan_ns", summary.makespan_ns},
        {"busy_h2d_ns", summary.busy_h2d_ns},
        {"busy_d2h_ns", summary.busy_d2h_ns},
        {"busy_compute_ns", summary.busy_compute_ns},
        {"copy_compute_overlap_ns", summary.copy_compute_overlap_ns},
        {"h2d_d2h_overlap_ns", summary.h2d_d2h_overlap_ns},
        {"kernel_overlap_ns", summary.kernel_overlap_ns},
        {"hidden_copy_fraction", summary.hidden_copy_fraction},
        {"distinct_streams", summary.distinct_streams},
        {"null_stream_ops", summary.null_stream_ops},
        {"op_count", summary.op_count},
    };
    return object.dump();
}

}  // namespace streamlab
