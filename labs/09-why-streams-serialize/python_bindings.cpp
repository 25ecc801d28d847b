// Lab 09's course side for Python, as the submodule streamlab.lab09 (the bindings
// of lab.json): the C++ lab's own files compiled in, so that both tracks are
// graded by the same code; and what the Python track's recording program
// (python/record_lab09.py) writes into its record as record_lab09.cpp does
// (lab09_record.hpp). One block per task; register_lab09 calls each.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "lab09.hpp"
#include "lab09_record.hpp"
#include "streamlab/device.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/record.hpp"
#include "streamlab/timeline.hpp"
#include "wait_side.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

// ---------------------------------------------------------------- Task 2: a late error

void bind_late_error(nb::module_& lab09) {
    lab09.attr("KTRIPWIRE") = lab09::kTripwire;
    lab09.attr("THREW_INSTEAD_OF_REPORTING") = lab09::course::kThrewInsteadOfReporting;
    lab09.def(
        "launch_faulty_workload",
        [](nb::handle input, nb::handle output, std::size_t n, int iterations, nb::handle stream) {
            lab09::launch_faulty_workload(pointer_of<const float>(input), pointer_of<float>(output), n, iterations,
                                          pointer_of<CUstream_st>(stream));
        },
        "input"_a, "output"_a, "n"_a, "iterations"_a, "stream"_a,
        "Queues the course's faulty kernel in `stream`: the workload kernel's work on n floats at these device "
        "addresses, except that the thread whose input is KTRIPWIRE writes outside any allocation (the kernel fails "
        "with cudaErrorIllegalAddress). Does not check the launch: ask cudart.cudaGetLastError() after it.");
    nb::class_<lab09::Tripwire>(lab09, "Tripwire", "Where the course planted the tripwire.")
        .def_ro("chunk", &lab09::Tripwire::chunk, "Its chunk (0-based).")
        .def_ro("index", &lab09::Tripwire::index, "Its element.");
    lab09.def(
        "plant_tripwire",
        [](nb::handle input, std::size_t n, int chunks) {
            return lab09::plant_tripwire(pointer_of<float>(input), n, chunks);
        },
        "input"_a, "n"_a, "chunks"_a,
        "Puts KTRIPWIRE at a random element of a random one of `chunks` chunks (streamlab.chunk_range) of the n "
        "host floats at `input`, and says where (Tripwire).");
    lab09.def(
        "launches_block",
        [](nb::handle device_input, nb::handle device_output, std::size_t n, int iterations) {
            return lab09::launches_block(pointer_of<float>(device_input), pointer_of<float>(device_output), n,
                                         iterations);
        },
        "device_input"_a, "device_output"_a, "n"_a, "iterations"_a,
        "Whether a kernel launch returns only once its kernel has run (CUDA_LAUNCH_BLOCKING=1 took effect): zeroes "
        "the n device floats at `device_input`, launches the workload kernel over them into `device_output` and asks "
        "its stream at once whether it is done.");
}

// ---------------------------------------------------------------- Task 3: the waiting host
// The GPU work the waits wait for, the host's work in slices, and what a wait cost
// (wait_side.hpp). Streams cross to Python as the integers cuda-bindings takes.
//
// The GIL: a call that takes a Python callable (a wait) keeps it, since the course
// calls the callable back on this thread, and nanobind's callable wrapper takes the
// GIL again to call it anyway. A call that only computes, spins or waits for the
// GPU and never calls back into Python lets it go, as a C++ computation would:
// HostWork.slice above all, the host's own work.

using lab09::course::HostWork;
using lab09::course::ObservedWait;
using lab09::course::RecordedWait;
using lab09::course::WaitCost;
using lab09::course::WaitJob;

/// A wait written in Python: wait(stream), the stream as the integer cuda-bindings takes.
using PythonWait = std::function<void(std::uintptr_t)>;

/// `wait` as the course's wait(cudaStream_t). It refers to `wait`, which must outlive it.
std::function<void(cudaStream_t)> course_wait(const PythonWait& wait) {
    return [&wait](cudaStream_t stream) { wait(address(stream)); };
}

using ReleaseGil = nb::call_guard<nb::gil_scoped_release>;

void bind_wait_costs(nb::module_& lab09) {
    nb::class_<WaitCost>(lab09, "WaitCost", "What one wait cost, as the course saw it from outside.")
        .def_ro("called_ns", &WaitCost::called_ns, "When the wait was called, on the timeline's clock.")
        .def_ro("returned_ns", &WaitCost::returned_ns, "When it returned, on the same clock.")
        .def_ro("cpu_ns", &WaitCost::cpu_ns, "The process's CPU time (every thread) between the two.")
        .def_prop_ro("wall_ns", &WaitCost::wall_ns, "How long the wait took, ns.")
        .def_prop_ro("cpu_share", &WaitCost::cpu_share,
                     "CPU time over wall time: near 1 for a thread that spins, near 0 for one asleep.");
    nb::class_<ObservedWait>(lab09, "ObservedWait", "One wait for a job, as the course saw it.")
        .def_ro("cost", &ObservedWait::cost, "What the wait cost (WaitCost).")
        .def_ro("results", &ObservedWait::results, "The results, read the moment the wait returned.");
    nb::class_<RecordedWait>(lab09, "RecordedWait", "A wait as the lab's programs show it, and its timeline.")
        .def_ro("observed", &RecordedWait::observed, "What the wait cost, and the results (ObservedWait).")
        .def_ro("timeline", &RecordedWait::timeline, "The job's ops; not recorded while the tracer is off.");
    lab09.def("process_cpu_ns", &lab09::course::process_cpu_ns,
              "The process's CPU time so far, user and system, every thread's (getrusage), ns.");
    lab09.def("observe_wait", &lab09::course::observe_wait, "wait"_a,
              "Runs wait() and notes its CPU time and when it was called and returned (WaitCost).");
    lab09.def("wake_up_delay_ns", &lab09::course::wake_up_delay_ns, "timeline"_a, "returned_ns"_a,
              "From the end of the timeline's last op to returned_ns (WaitCost.returned_ns), ns: negative when "
              "the host returned before the GPU was done; 0 for a timeline without ops.");
}

void bind_wait_job(nb::module_& lab09) {
    nb::class_<WaitJob>(lab09, "WaitJob",
                        "The GPU work the waits wait for: the pipeline's memory in, `kernels` workload kernels, "
                        "the results out, in a non-blocking stream of its own.")
        .def(nb::init<const DeviceFacts&>(), "facts"_a, ReleaseGil(),
             "Allocates and fills the memory, sizes the kernel, creates the stream. Needs a GPU.")
        .def(nb::init<std::size_t, int, std::uint32_t>(), "n"_a, "iterations"_a, "seed"_a, ReleaseGil(),
             "The job over memory of its own, n floats, its input streamlab.fill_input's of `seed`, its kernel "
             "`iterations` long (a recording's set-up); creates the stream. Needs a GPU.")
        .def_prop_ro(
            "output", [](const WaitJob& job) { return address(job.output()); },
            "The address of the results in host memory (n floats): right only once the work is done.")
        .def_prop_ro(
            "stream", [](const WaitJob& job) { return address(job.stream()); },
            "The stream the work goes to, as the integer cuda-bindings takes.")
        .def("queue", &WaitJob::queue, "kernels"_a, ReleaseGil(),
             "Poisons the results, then queues the work with `kernels` kernels and returns at once.")
        .def("check", &WaitJob::check, ReleaseGil(),
             "The results, read now, against the CPU reference: right only once the work is done.")
        .def(
            "queue_and_wait",
            [](WaitJob& job, int kernels, const PythonWait& wait) {
                return job.queue_and_wait(kernels, course_wait(wait));
            },
            "kernels"_a, "wait"_a,
            "Queues the work with `kernels` kernels, observes wait(stream), and reads the results the moment "
            "it returns (ObservedWait).")
        .def(
            "warm_up", [](WaitJob& job, const PythonWait& wait) { job.warm_up(course_wait(wait)); }, "wait"_a,
            "Waits with wait(stream) once for the short job, then for whatever is left: a first call pays "
            "one-time costs, which no observed wait should.")
        .def("measure_ns", &WaitJob::measure_ns, "kernels"_a, ReleaseGil(),
             "How long the work with `kernels` kernels runs on the GPU, ns, timed with events around it.")
        .def("host_slice_ns", &WaitJob::host_slice_ns, ReleaseGil(),
             "The length of one slice of the host's work: the short job's GPU time over SLICES_PER_SHORT_JOB.");
    lab09.def(
        "record_wait",
        [](WaitJob& job, int kernels, const PythonWait& wait, HostWork* work) {
            return lab09::course::record_wait(job, kernels, course_wait(wait), work);
        },
        "job"_a, "kernels"_a, "wait"_a, "work"_a.none() = nb::none(),
        "job.warm_up(wait), then job.queue_and_wait(kernels, wait) while the tracer records (with the tracer "
        "off, unrecorded): a RecordedWait. `work`, when given, forgets the warm-up's slices.");
    lab09.attr("SHORT_JOB_KERNELS") = lab09::course::kShortJobKernels;
    lab09.attr("LONG_JOB_KERNELS") = lab09::course::kLongJobKernels;
    lab09.attr("SLICES_PER_SHORT_JOB") = lab09::course::kSlicesPerShortJob;
}

void bind_host_work(nb::module_& lab09) {
    nb::class_<HostWork>(lab09, "HostWork",
                         "The host's own work, in slices of about `slice_ns` each; the thread that creates it is "
                         "the waiting thread. Pass `work.slice` as a wait's host_work.")
        .def(nb::init<std::uint64_t>(), "slice_ns"_a)
        // Released: the slice keeps this thread computing in C++, never in Python.
        .def("slice", &HostWork::slice, ReleaseGil(), "One slice of work, timed by the course.")
        .def("reset", &HostWork::reset, "Forgets the slices done so far.")
        .def_prop_ro("busy_ns", &HostWork::busy_ns, "Time spent in slices so far, ns, on any thread.")
        .def_prop_ro("slices", &HostWork::slices, "Slices done so far.")
        .def_prop_ro("slices_elsewhere", &HostWork::slices_elsewhere,
                     "Slices that ran on a thread other than the one that created this object.")
        .def_prop_ro("mean_slice_ns", &HostWork::mean_slice_ns,
                     "The slices' mean length, ns, or the length asked for while none has run.");
}

// What the recording writes of Task 3's waits (lab09_record.hpp): the ways choice.txt
// may name, the scenarios of your waits, and one wait as the course observed it.
void bind_wait_record(nb::module_& lab09) {
    using lab09::course::WaitValues;
    using lab09::course::WaitWay;
    nb::class_<WaitWay>(lab09, "WaitWay", "A way to wait that choice.txt may name.")
        .def_prop_ro(
            "name", [](const WaitWay& way) { return std::string(way.name); },
            "As the program's table and choice.txt write it.")
        .def_ro("schedule", &WaitWay::schedule,
                "The device's schedule flag it waits under (cudaDeviceScheduleAuto: left alone).")
        .def_prop_ro(
            "scenario", [](const WaitWay& way) { return std::string(way.scenario); },
            "The recorded scenario in which the course's long job was waited for that way.");
    lab09.def("wait_way", &lab09::course::wait_way, "name"_a, nb::rv_policy::reference,
              "The way (WaitWay) `name` names, or None.");
    lab09.attr("SCHEDULE_VARIABLE") = lab09::course::kScheduleVariable;
    lab09.def("job_scenario", &lab09::course::job_scenario, "wait"_a, "kernels"_a,
              "The scenario of your wait `wait` (\"wait_blocking\", \"wait_polling\") for the job with `kernels` "
              "kernels.");
    nb::class_<WaitValues>(lab09, "WaitValues", "One wait as the course observed it, on the scenario's timeline.")
        .def(nb::init<>())
        .def_rw("called_ns", &WaitValues::called_ns, "When the wait was called, ns from the timeline's origin.")
        .def_rw("returned_ns", &WaitValues::returned_ns, "When it returned, ns from the timeline's origin.")
        .def_rw("cpu_ns", &WaitValues::cpu_ns, "The process's CPU time (every thread) between the two.")
        .def_rw("work_ns", &WaitValues::work_ns, "Time spent in the host's slices of work during the wait.")
        .def_rw("slices", &WaitValues::slices, "Slices done during the wait.")
        .def_rw("slices_elsewhere", &WaitValues::slices_elsewhere,
                "Of those, slices run on a thread other than the waiting one.")
        .def_rw("mean_slice_ns", &WaitValues::mean_slice_ns,
                "The slices' mean length (the length asked for while none ran).")
        .def_rw("device_flags_before", &WaitValues::device_flags_before,
                "cudaGetDeviceFlags before the scenario's first wait (its warm-up).")
        .def_rw("device_flags_after", &WaitValues::device_flags_after, "cudaGetDeviceFlags after the observed wait.");
    lab09.def(
        "put_wait",
        [](const WaitValues& wait, record::Scenario& scenario) { lab09::course::put_wait(wait, scenario.values); },
        "wait"_a, "scenario"_a, "Writes `wait` into a recorded scenario's values, as the judges read them back.");
}

}  // namespace

void register_lab09(nb::module_& module) {
    nb::module_ lab09 = module.def_submodule(
        "lab09", "Lab 09's course side: Task 2's faulty kernel and tripwire, Task 3's waits, observed.");
    // Task 2: a late error.
    bind_late_error(lab09);
    // Task 3: the waiting host.
    bind_wait_costs(lab09);
    bind_host_work(lab09);
    bind_wait_job(lab09);
    bind_wait_record(lab09);
}

}  // namespace streamlab::python
