// Lab 07's course side for Python, as the submodule streamlab.lab07: the host that
// consumes each chunk's results and times every call on the timeline's clock
// (labs/07-dependencies-and-graphs/course_side.hpp), compiled in from the C++ lab.
//
// A host function is a C function pointer and one pointer of data, which Python
// code cannot make without ctypes (refused in student files). So the consumer
// hands out both: `host_function`, a C++ function of the course's, and
// `user_data(chunk)`, the chunk's delivery record, ready for
// cudart.cudaLaunchHostFunc(stream, consumer.host_function, consumer.user_data(c)).
// The host function then runs entirely in C++: no Python, so no interpreter lock
// for CUDA's thread to wait for.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "course_side.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/workload.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

using lab07::course::Consumption;
using lab07::course::ResultsConsumer;

/// The course's consumer of a pipeline run, with one delivery record per chunk
/// for the host functions: they live as long as the consumer does.
class HostConsumer {
public:
    HostConsumer(PipelineMemory& memory, int iterations, int chunks)
        : job_(job_over<lab07::PipelineJob>(memory, iterations)),
          consumer_(std::make_unique<ResultsConsumer>(job_, chunks)),
          consume_(consumer_->consumer()) {
        for (int c = 0; c < chunks; ++c) {
            deliveries_.push_back({this, c});
        }
    }

    /// What a host function runs: the course's consume for the chunk in `data`.
    static void deliver(void* data) {
        const auto* delivery = static_cast<const Delivery*>(data);
        delivery->consumer->consume(delivery->chunk);
    }

    void consume(int chunk) const { consume_.consume(chunk); }

    std::uintptr_t user_data(int chunk) const {
        if (chunk < 0 || chunk >= static_cast<int>(deliveries_.size())) {
            throw std::out_of_range("user_data(" + std::to_string(chunk) + "): the job has " +
                                    std::to_string(deliveries_.size()) + " chunks");
        }
        return address(&deliveries_[static_cast<std::size_t>(chunk)]);
    }

    void reset() { consumer_->reset(); }
    std::vector<Consumption> consumptions(std::uint64_t origin_ns) const { return consumer_->consumptions(origin_ns); }
    ResultCheck check(int chunks) const {
        return check_workload_output(job_.input, consumer_->consumed.data(), job_.n, job_.iterations, chunks);
    }

private:
    struct Delivery {
        const HostConsumer* consumer;
        int chunk;
    };
    lab07::PipelineJob job_;
    std::unique_ptr<ResultsConsumer> consumer_;
    lab07::Consumer consume_;
    std::vector<Delivery> deliveries_;  // never resized after construction: the addresses stay valid
};

}  // namespace

void bind_dependencies(nb::module_& module) {
    nb::module_ lab07 = module.def_submodule("lab07", "Lab 07's course side: the consumer of each chunk's results.");
    nb::class_<Consumption>(lab07, "Consumption", "One call of consume, as the course saw it (ns, thread).")
        .def_ro("chunk", &Consumption::chunk)
        .def_ro("start_ns", &Consumption::start_ns)
        .def_ro("end_ns", &Consumption::end_ns)
        .def_ro("thread", &Consumption::thread);
    nb::class_<HostConsumer>(lab07, "HostConsumer",
                             "The host that takes each chunk's results out of memory.output, timing each call.")
        .def(nb::init<PipelineMemory&, int, int>(), "memory"_a, "iterations"_a, "chunks"_a, nb::keep_alive<1, 2>())
        .def_prop_ro(
            "host_function",
            [](const HostConsumer&) { return address(reinterpret_cast<void*>(&HostConsumer::deliver)); },
            "The address of the course's host function: cudaLaunchHostFunc's fn.")
        .def("user_data", &HostConsumer::user_data, "chunk"_a,
             "The address of chunk's delivery record: cudaLaunchHostFunc's userData for that chunk.")
        .def("consume", &HostConsumer::consume, "chunk"_a, "Consumes chunk's results now, on this thread.")
        .def("reset", &HostConsumer::reset, "Forgets the calls and poisons what was consumed.")
        .def("consumptions", &HostConsumer::consumptions, "origin_ns"_a,
             "The calls since reset(), in the order they began, relative to origin_ns.")
        .def("check", &HostConsumer::check, "chunks"_a, "What was consumed, against the CPU reference.");
}

}  // namespace streamlab::python
