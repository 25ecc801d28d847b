// The pipeline model for Python (the plots and the demo draw it): stage times for the
// whole data, the issue order as "chunk" or "stage", stages as "H2D", "K", "D2H",
// chunks numbered from 0 (the article's chunk 1 is chunk 0).
#include <stdexcept>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "streamlab/model.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace streamlab::python {

namespace {

nb::dict model_dict(double h2d, double kernel, double d2h, int chunks, int copy_engines) {
    const PipelineEstimate estimate = pipeline_model({h2d, kernel, d2h}, chunks, copy_engines);
    nb::dict result;
    result["serial"] = estimate.serial;
    result["ideal"] = estimate.ideal;
    result["bound"] = estimate.bound;
    result["speedup"] = estimate.speedup;
    return result;
}

std::vector<SimulatedOp> simulate(double h2d, double kernel, double d2h, int chunks, int streams, int copy_engines,
                                  const std::string& order, const LinkSharing& link) {
    return simulate_pipeline({h2d, kernel, d2h}, chunks, streams, copy_engines, issue_order_from_string(order), link);
}

}  // namespace

void bind_model(nb::module_& module) {
    nb::class_<LinkSharing>(module, "LinkSharing",
                            "The fraction of its own speed each copy direction keeps while the other copies too.")
        .def(nb::init<double, double>(), "h2d"_a = 1.0, "d2h"_a = 1.0)
        .def_rw("h2d", &LinkSharing::h2d)
        .def_rw("d2h", &LinkSharing::d2h);
    nb::class_<SimulatedOp>(module, "SimulatedOp", "One op of a simulated pipeline.")
        .def_ro("chunk", &SimulatedOp::chunk, "Chunk index, from 0.")
        .def_prop_ro(
            "stage", [](const SimulatedOp& op) { return to_string(op.stage); }, "H2D, K or D2H.")
        .def_ro("stream", &SimulatedOp::stream)
        .def_ro("start", &SimulatedOp::start)
        .def_ro("end", &SimulatedOp::end)
        .def_prop_ro(
            "name",
            [](const SimulatedOp& op) { return std::string(to_string(op.stage)) + "_" + std::to_string(op.chunk + 1); },
            "The op's name as the article and the labs' traces show it: H2D_1, K_1, D2H_1.");
    module.def("pipeline_model", &model_dict, "h2d"_a, "kernel"_a, "d2h"_a, "chunks"_a, "copy_engines"_a,
               "serial, ideal, bound and speedup (a dict) for whole-data stage times cut into `chunks` chunks.");
    module.def("simulate_pipeline", &simulate, "h2d"_a, "kernel"_a, "d2h"_a, "chunks"_a, "streams"_a, "copy_engines"_a,
               "order"_a = "chunk", "link"_a = LinkSharing{},
               "The ops of the pipeline on an idealised GPU, in issue order (see model.hpp).");
    module.def("simulated_makespan", &simulated_makespan, "ops"_a, "Last end minus first start of simulated ops.");
}

}  // namespace streamlab::python
