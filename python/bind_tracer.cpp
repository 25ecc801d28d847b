// The tracer for Python, as a context manager that records the calling process:
//
//     with streamlab.record("pipeline") as timeline:
//         ...  # CUDA work, from any library that uses the GPU in this process
//     print(timeline.ops)
//
// CUPTI records in-process, so nothing needs to be preloaded. `timeline` is empty
// inside the block and filled when it ends.
#include <memory>
#include <string>
#include <utility>

#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "streamlab/tracer.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

class Recording {
public:
    explicit Recording(std::string program) : program_(std::move(program)) {}

    // Starts recording (TimelineUnavailable without a GPU); returns the timeline to be filled.
    nb::object enter() {
        if (timeline_.is_valid()) {
            throw std::logic_error("a recording can be entered once; call streamlab.record again");
        }
        off_reason_ = tracing_off_reason();
        if (off_reason_.empty()) {
            tracer_ = std::make_unique<Tracer>(program_);
        }
        timeline_ = nb::cast(Timeline{});
        return timeline_;
    }

    // Stops recording and fills the timeline; after an exception the recording is discarded.
    bool exit(nb::handle exception_type, nb::handle, nb::handle) {
        std::unique_ptr<Tracer> tracer = std::move(tracer_);
        if (!exception_type.is_none()) {
            return false;  // the exception goes on; the tracer's destructor discards the records
        }
        Timeline& timeline = nb::cast<Timeline&>(timeline_);
        timeline = tracer ? tracer->finish() : unrecorded_timeline(program_, off_reason_);
        return false;
    }

private:
    std::string program_;
    std::string off_reason_;
    std::unique_ptr<Tracer> tracer_;
    nb::object timeline_;
};

}  // namespace

void bind_tracer(nb::module_& module) {
    nb::class_<Recording>(module, "Recording", "What streamlab.record returns: use it in a with statement.")
        .def("__enter__", &Recording::enter)
        .def("__exit__", &Recording::exit, nb::arg().none(), nb::arg().none(), nb::arg().none());
    module.def(
        "record", [](const std::string& program) { return new Recording(program); }, "program"_a,
        nb::rv_policy::take_ownership,
        "Records the GPU's timeline of this process while the with block runs: "
        "with streamlab.record(\"pipeline\") as timeline: ... Raises TimelineUnavailable where nothing can be "
        "recorded (no GPU, CUPTI taken by another tool).");
    module.def("host_thread_id", &host_thread_id,
               "This host thread's id, as Timeline.api_calls_by_thread and the course's records name threads.");
    module.def("mark", &host_mark, "name"_a, "Records a host mark on the recording's clock (nothing when none runs).");
    nb::class_<TracerOverhead>(module, "TracerOverhead",
                               "A piece of work's host-clock time with nothing recorded, with CUPTI's activity "
                               "records alone, and inside a recording.")
        .def_ro("untraced_ms", &TracerOverhead::untraced_ms, "Median of the runs with nothing recorded.")
        .def_ro("cupti_only_ms", &TracerOverhead::cupti_only_ms,
                "Median of the runs with CUPTI's activity records alone (CUPTI's own cost).")
        .def_ro("traced_ms", &TracerOverhead::traced_ms, "Median of the runs inside a recording.");
    module.def("measure_tracer_overheads", &measure_tracer_overheads, "program"_a, "repeats"_a, "runs"_a,
               "What recording costs each of `runs` (callables that do some work and return its host-clock ms), "
               "against what CUPTI's activity records alone cost: every run with nothing recorded first, then "
               "CUPTI alone, then recorded, since CUPTI stays attached to a process once attached.");
    module.def("tracing_off_reason", &tracing_off_reason,
               "Why the tracer is off (STREAMLAB_NO_TRACE), or \"\" while it may record.");
}

}  // namespace streamlab::python
