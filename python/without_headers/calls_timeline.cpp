// Trace files, the timeline analysis and the pipeline model through the C interface
// (the module's bind_timeline.cpp, bind_analysis.cpp and bind_model.cpp).
#include <string>
#include <vector>

#include "c_library.hpp"
#include "json_values.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/model.hpp"
#include "streamlab/trace_file.hpp"

namespace streamlab::without_headers {

namespace {

using Ops = std::vector<DeviceOp>;

void add_trace_file_calls() {
    add_call("Timeline", [](const Json&) { return Json(Timeline{}); });
    add_call("DeviceOp", [](const Json& a) { return Json(a.get<DeviceOp>()); });
    add_call("read_trace", [](const Json& a) { return Json(read_trace(a.at("path").get<std::string>())); });
    add_call("parse_trace", [](const Json& a) { return Json(parse_trace(a.at("text").get<std::string>())); });
    add_call("trace_to_json",
             [](const Json& a) { return Json(trace_to_json_string(a.at("timeline").get<Timeline>())); });
    add_call("write_trace", [](const Json& a) {
        write_trace(a.at("path").get<std::string>(), a.at("timeline").get<Timeline>());
        return Json();
    });
}

// One analysis measure of a list of ops.
template <typename Measure>
void add_ops_measure(const std::string& name, Measure measure) {
    add_call(name, [measure](const Json& a) { return Json(measure(a.at("ops").get<Ops>())); });
}

void add_analysis_calls() {
    add_ops_measure("makespan_ns", makespan_ns);
    add_ops_measure("copy_compute_overlap_ns", copy_compute_overlap_ns);
    add_ops_measure("h2d_d2h_overlap_ns", h2d_d2h_overlap_ns);
    add_ops_measure("kernel_overlap_ns", kernel_overlap_ns);
    add_ops_measure("hidden_copy_fraction", hidden_copy_fraction);
    add_ops_measure("distinct_streams", distinct_streams);
    add_ops_measure("null_stream_ops", null_stream_ops);
    add_call("event_record_span_ns",
             [](const Json& a) { return Json(event_record_span_ns(a.at("timeline").get<Timeline>())); });
}

void add_model_calls() {
    add_call("pipeline_model", [](const Json& a) {
        const PipelineEstimate estimate =
            pipeline_model({a.at("h2d").get<double>(), a.at("kernel").get<double>(), a.at("d2h").get<double>()},
                           a.at("chunks").get<int>(), a.at("copy_engines").get<int>());
        return Json{{"serial", estimate.serial},
                    {"ideal", estimate.ideal},
                    {"bound", estimate.bound},
                    {"speedup", estimate.speedup}};
    });
    add_call("simulate_pipeline", [](const Json& a) {
        return Json(simulate_pipeline(
            {a.at("h2d").get<double>(), a.at("kernel").get<double>(), a.at("d2h").get<double>()},
            a.at("chunks").get<int>(), a.at("streams").get<int>(), a.at("copy_engines").get<int>(),
            issue_order_from_string(a.at("order").get<std::string>()), a.at("link").get<LinkSharing>()));
    });
    add_call("simulated_makespan",
             [](const Json& a) { return Json(simulated_makespan(a.at("ops").get<std::vector<SimulatedOp>>())); });
}

}  // namespace

void add_timeline_calls() {
    add_trace_file_calls();
    add_analysis_calls();
    add_model_calls();
}

}  // namespace streamlab::without_headers
