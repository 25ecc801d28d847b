// Timeline analysis for Python: the measures a grader takes of a list of DeviceOp.
// Units are spelled "h2d", "d2h", "compute", "other", as the plots name them.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "streamlab/analysis.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

using Ops = std::vector<DeviceOp>;
using Pairs = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

const char* unit_name(Unit unit) {
    switch (unit) {
        case Unit::CopyH2D:
            return "h2d";
        case Unit::CopyD2H:
            return "d2h";
        case Unit::Compute:
            return "compute";
        case Unit::Other:
            break;
    }
    return "other";
}

Unit unit_from_name(const std::string& name) {
    for (const Unit unit : {Unit::CopyH2D, Unit::CopyD2H, Unit::Compute, Unit::Other}) {
        if (name == unit_name(unit)) {
            return unit;
        }
    }
    throw std::invalid_argument("unit must be h2d, d2h, compute or other, not \"" + name + "\"");
}

// Intervals travel as (start_ns, end_ns) tuples.
std::vector<Interval> to_intervals(const Pairs& pairs) {
    std::vector<Interval> intervals;
    for (const auto& [start, end] : pairs) {
        intervals.push_back({start, end});
    }
    return intervals;
}

Pairs to_pairs(const std::vector<Interval>& intervals) {
    Pairs pairs;
    for (const Interval& interval : intervals) {
        pairs.emplace_back(interval.start_ns, interval.end_ns);
    }
    return pairs;
}

// The summary as a dict with TimelineSummary's names (streamlab_analyze prints the same keys).
nb::dict summary_dict(const Ops& ops) {
    const TimelineSummary summary = summarize(ops);
    nb::dict result;
    result["makespan_ns"] = summary.makespan_ns;
    result["busy_h2d_ns"] = summary.busy_h2d_ns;
    result["busy_d2h_ns"] = summary.busy_d2h_ns;
    result["busy_compute_ns"] = summary.busy_compute_ns;
    result["copy_compute_overlap_ns"] = summary.copy_compute_overlap_ns;
    result["h2d_d2h_overlap_ns"] = summary.h2d_d2h_overlap_ns;
    result["kernel_overlap_ns"] = summary.kernel_overlap_ns;
    result["hidden_copy_fraction"] = summary.hidden_copy_fraction;
    result["distinct_streams"] = summary.distinct_streams;
    result["null_stream_ops"] = summary.null_stream_ops;
    result["op_count"] = summary.op_count;
    return result;
}

}  // namespace

void bind_analysis(nb::module_& module) {
    module.def(
        "merge_intervals", [](const Pairs& pairs) { return to_pairs(merge_intervals(to_intervals(pairs))); },
        "intervals"_a, "The union of (start_ns, end_ns) intervals as sorted, disjoint intervals.");
    module.def(
        "total_length", [](const Pairs& pairs) { return total_length(to_intervals(pairs)); }, "intervals"_a,
        "The length of the union of the intervals.");
    module.def(
        "intersection_length",
        [](const Pairs& a, const Pairs& b) { return intersection_length(to_intervals(a), to_intervals(b)); }, "a"_a,
        "b"_a, "The length of union(a) ∩ union(b).");
    module.def(
        "unit_of", [](const DeviceOp& op) { return unit_name(unit_of(op.kind)); }, "op"_a,
        "The unit an op keeps busy: h2d, d2h, compute or other.");
    module.def(
        "unit_of_kind", [](const std::string& kind) { return unit_name(unit_of(op_kind_from_string(kind))); }, "kind"_a,
        "The unit an op of `kind` (kernel, memcpy_h2d, ...) keeps busy: h2d, d2h, compute or other.");
    module.def("makespan_ns", &makespan_ns, "ops"_a, "Last end minus first start (0 without ops).");
    module.def("event_record_span_ns", &event_record_span_ns, "timeline"_a,
               "The longest time two events can span, recorded at the host's first and last cudaEventRecord "
               "calls: to the later of the last call and the last op's end (the makespan with fewer than two).");
    module.def(
        "busy_ns", [](const Ops& ops, const std::string& unit) { return busy_ns(ops, unit_from_name(unit)); }, "ops"_a,
        "unit"_a, "Time during which at least one op of `unit` ran.");
    module.def("copy_compute_overlap_ns", &copy_compute_overlap_ns, "ops"_a,
               "Time during which a copy and a kernel ran at once.");
    module.def("h2d_d2h_overlap_ns", &h2d_d2h_overlap_ns, "ops"_a, "Time during which copies both ways ran at once.");
    module.def("kernel_overlap_ns", &kernel_overlap_ns, "ops"_a, "Time during which two kernels or more ran.");
    module.def("hidden_copy_fraction", &hidden_copy_fraction, "ops"_a, "The share of copy time hidden behind kernels.");
    module.def("distinct_streams", &distinct_streams, "ops"_a, "Number of different stream ids.");
    module.def("null_stream_ops", &null_stream_ops, "ops"_a, "Ops in the legacy NULL or a per-thread default stream.");
    module.def(
        "implicit_syncs_while_busy",
        [](const Timeline& timeline) {
            std::vector<std::string> functions;
            for (const StreamCall& call : implicit_syncs_while_busy(timeline)) {
                functions.push_back(call.function);
            }
            return functions;
        },
        "timeline"_a,
        "The names of the calls that may make streams wait for each other (cudaMalloc, cudaFree, page-locked "
        "allocations, cudaMemset, device-wide settings) that the host made while some op ran, in call order.");
    module.def("summarize", &summary_dict, "ops"_a,
               "All the measures above as a dict, keyed as streamlab_analyze keys them.");
}

}  // namespace streamlab::python
