// A Python lab's recording program, as the C++ ones are (streamlab/recording.hpp):
//
//     def scenarios(session):
//         n = int(session.setup_value("n", lambda: 1 << 20))
//         session.scenario("pipeline", lambda scenario: session.record(scenario, "run_pipeline", work))
//
//     sys.exit(streamlab.recording.record_scenarios(sys.argv, scenarios))
//
// It writes the same record as the C++ track's program, so the same judges grade
// both tracks. What a scenario's Python code raises fails that scenario, with
// Python's message, as a C++ exception does.
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nanobind/stl/function.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "streamlab/bandwidth.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/record.hpp"
#include "streamlab/recording.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

/// streamlab.recording.ScenarioFailed, made by bind_recording (kept for the life of the process).
nb::handle scenario_failed;

/// What Python raised, in one line for the record: its type, its message and
/// the line it was raised at ("NotImplementedError: not written yet (student.py:31)"),
/// not the whole traceback, most of which is the course's own frames. A
/// ScenarioFailed, the recording program's own, is its message alone.
std::string python_failure(const nb::python_error& error) {
    const nb::handle raised = error.value();
    if (scenario_failed.is_valid() && error.matches(scenario_failed)) {
        return nb::cast<std::string>(nb::str(raised));  // the course's own words, for the judges to read
    }
    std::string line = nb::cast<std::string>(nb::str(raised.type().attr("__name__")));
    const std::string message = nb::cast<std::string>(nb::str(raised));
    if (!message.empty()) {
        line += ": " + message;
    }
    nb::object frame = raised.attr("__traceback__");
    if (!frame.is_none()) {
        while (!frame.attr("tb_next").is_none()) {
            frame = frame.attr("tb_next");
        }
        const std::string file = nb::cast<std::string>(frame.attr("tb_frame").attr("f_code").attr("co_filename"));
        line += " (" + file.substr(file.find_last_of('/') + 1) + ":" +
                std::to_string(nb::cast<int>(frame.attr("tb_lineno"))) + ")";
    }
    return line;
}

/// Calls `function(object)` with the C++ object itself, not a copy: what the
/// Python code puts into a scenario must reach the one the session sends. What
/// it raises fails the scenario with python_failure's line.
template <typename T>
void by_reference(const nb::callable& function, T& object) {
    try {
        function(nb::cast(&object, nb::rv_policy::reference));
    } catch (const nb::python_error& error) {
        throw std::runtime_error(python_failure(error));
    }
}

}  // namespace

void bind_recording(nb::module_& module) {
    nb::module_ recording = module.def_submodule(
        "recording", "A lab's recording program: runs the lab's scenarios and sends their record to the harness.");

    scenario_failed = PyErr_NewExceptionWithDoc(
        "streamlab.recording.ScenarioFailed",
        "Raised by a recording program to fail its scenario with this message alone, word for word (no type, no "
        "line), where the judges read the message.",
        PyExc_RuntimeError, nullptr);
    if (!scenario_failed.is_valid()) {
        throw nb::python_error();
    }
    recording.attr("ScenarioFailed") = scenario_failed;

    nb::class_<record::OutputSample>(recording, "OutputSample",
                                     "A run's output, sampled for the judges (record.hpp's sample_output).")
        .def_ro("n", &record::OutputSample::n)
        .def_ro("iterations", &record::OutputSample::iterations)
        .def_ro("chunks", &record::OutputSample::chunks)
        .def_ro("seed", &record::OutputSample::seed);

    nb::class_<record::Scenario>(recording, "Scenario", "One scenario of a recording run, filled as it runs.")
        .def_ro("name", &record::Scenario::name)
        .def_prop_ro(
            "timeline",
            [](const record::Scenario& s) -> const Timeline* { return s.timeline ? &*s.timeline : nullptr; },
            nb::rv_policy::reference_internal,
            "What Session.record recorded (its origin_ns is the clock the course's own notes are relative to); "
            "None before it.")
        .def(
            "set_value", [](record::Scenario& s, const std::string& key, double value) { s.values[key] = value; },
            "key"_a, "value"_a, "Records a value the course measured or the student's code returned.")
        .def(
            "clear_values", [](record::Scenario& s) { s.values.clear(); },
            "Forgets the values recorded so far: the scenario records its run again, and only that run's count.")
        .def_rw("output", &record::Scenario::output,
                "The run's output, sampled for the judges (an OutputSample), or None when the judges need none.")
        .def(
            "sample_output",
            [](record::Scenario& s, nb::handle output, std::uint64_t n, int iterations, int chunks,
               std::uint32_t seed) {
                s.output = record::sample_output(pointer_of<float>(output), n, iterations, chunks, seed);
            },
            "output"_a, "n"_a, "iterations"_a, "chunks"_a, "seed"_a,
            "Records the run's output (host address of n floats), sampled for the judges.");

    nb::class_<recording::ProcessNeeds>(
        recording, "ProcessNeeds",
        "What a scenario needs of the process it runs in, beyond an ordinary one (common/RECORD_FORMAT.md, \"A "
        "process of its own\").")
        .def(nb::init<>())
        .def(
            "__init__",
            [](recording::ProcessNeeds* needs, const std::map<std::string, std::string>& environment,
               bool ends_process) { new (needs) recording::ProcessNeeds{environment, ends_process}; },
            "environment"_a, "ends_process"_a = false)
        .def_rw("environment", &recording::ProcessNeeds::environment,
                "Variables the process must have had from its start (CUDA reads CUDA_LAUNCH_BLOCKING only then).")
        .def_rw("ends_process", &recording::ProcessNeeds::ends_process,
                "The scenario leaves its process unusable on purpose (a sticky CUDA error): the next one asks for a "
                "fresh process.");

    nb::class_<recording::Session>(recording, "Session", "What a lab's scenarios see of the recording run.")
        .def_prop_ro("facts", &recording::Session::facts, "The device the scenarios run on.")
        .def_prop_ro("seed", &recording::Session::seed, "The input's seed the harness chose.")
        .def_prop_ro("job_salt", &recording::Session::job_salt,
                     "The job salt the harness chose for this run: every element count follows from it.")
        .def("salted_elements", &recording::Session::salted_elements, "usual"_a,
             "`usual` elements bound to this run's job salt: a little fewer, n % 4096 == job_salt.")
        .def("setup_value", &recording::Session::setup_value, "key"_a, "measure"_a,
             "A value every scenario shares: after a restart the first start's, else measure()'s.")
        .def(
            "scenario",
            [](recording::Session& session, const std::string& name, nb::callable body) {
                session.scenario(name, [&](record::Scenario& scenario) { by_reference(body, scenario); });
            },
            "name"_a, "body"_a, "Runs scenario `name` (body(scenario)) and sends its record.")
        .def(
            "scenario",
            [](recording::Session& session, const std::string& name, const recording::ProcessNeeds& needs,
               nb::callable body) {
                session.scenario(name, needs, [&](record::Scenario& scenario) { by_reference(body, scenario); });
            },
            "name"_a, "needs"_a, "body"_a,
            "scenario(name, body) in a process that meets `needs` (ProcessNeeds): where this one does not, the "
            "program asks the harness for one that does and exits, and the harness starts it at this scenario.")
        .def("record", &recording::Session::record, "scenario"_a, "program"_a, "work"_a,
             "Runs work() while CUPTI records; its timeline goes into `scenario`.")
        .def("run_untraced", &recording::Session::run_untraced, "scenario"_a, "program"_a, "work"_a,
             "Runs work() with no tracer, for a run no tracer would survive (a sticky CUDA error); the scenario's "
             "trace holds no ops, only its end mark.");

    recording.def(
        "record_scenarios",
        [](const std::vector<std::string>& argv, nb::callable scenarios) {
            std::vector<char*> pointers;
            std::vector<std::string> arguments = argv;
            for (std::string& argument : arguments) {
                pointers.push_back(argument.data());
            }
            pointers.push_back(nullptr);
            return recording::record_scenarios(static_cast<int>(arguments.size()), pointers.data(),
                                               [&](recording::Session& session) { by_reference(scenarios, session); });
        },
        "argv"_a, "scenarios"_a,
        "The recording program's main: reads the harness's arguments (sys.argv) and runs `scenarios(session)`; "
        "returns the exit status.");

    nb::class_<recording::RecordedPipeline>(recording, "RecordedPipeline",
                                            "A recorded pipeline's set-up: its memory, input filled from the seed.")
        .def_prop_ro(
            "memory", [](recording::RecordedPipeline& p) -> PipelineMemory& { return p.memory; },
            nb::rv_policy::reference_internal)
        .def_ro("h2d_ms", &recording::RecordedPipeline::h2d_ms)
        .def_ro("iterations", &recording::RecordedPipeline::iterations);
    recording.def(
        "prepare_recorded_pipeline", &recording::prepare_recorded_pipeline, "session"_a,
        "The set-up values n, h2d_ms and iterations, and the memory, as the C++ recording programs have them.");

    // The course's own measurements a recording program makes, as the C++ ones do.
    recording.def("run_serial_once", &run_serial_once, "memory"_a, "iterations"_a,
                  "The serial reference on `memory`, unrecorded: ms between events around its three ops.");
    // The sizes of a recording's copies, as the C++ ones choose them (streamlab/bandwidth.hpp).
    recording.def("largest_copy_bytes", &largest_copy_bytes, "wanted"_a, "device_memory_bytes"_a,
                  "host_available_bytes"_a,
                  "The largest power of two at most `wanted` and at most an eighth of the device's and of the "
                  "available host memory (0: unknown, no limit); never below 4 KiB.");
    recording.def("available_host_memory_bytes", &available_host_memory_bytes,
                  "Host memory the system could give this process now, in bytes (0 when it cannot be read).");
}

}  // namespace streamlab::python
