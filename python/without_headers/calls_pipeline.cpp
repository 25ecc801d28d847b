// The course's workload and the chunked pipeline through the C interface (the
// module's bind_pipeline.cpp). Buffers and streams are addresses; the memory the
// course allocates stays here, kept, until Python lets go of it.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "c_library.hpp"
#include "json_values.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/ordering.hpp"
#include "streamlab/pipeline.hpp"

namespace streamlab::without_headers {

namespace {

using Ops = std::vector<DeviceOp>;

void add_device_calls() {
    add_call("gpu_presence", [](const Json&) {
        const GpuPresence presence = query_gpu_presence();
        return Json::array({presence.available, presence.reason});
    });
    add_call("device_facts", [](const Json& a) { return Json(query_device_facts(a.at("ordinal").get<int>())); });
}

void add_workload_calls() {
    add_call("launch_workload", [](const Json& a) {
        launch_workload(pointer<const float>(a.at("input")), pointer<float>(a.at("output")),
                        a.at("n").get<std::size_t>(), a.at("iterations").get<int>(),
                        pointer<CUstream_st>(a.at("stream")), a.at("max_blocks").get<int>());
        return Json();
    });
    add_call("fill_input", [](const Json& a) {
        fill_input(pointer<float>(a.at("data")), a.at("n").get<std::size_t>(), a.at("seed").get<std::uint32_t>());
        return Json();
    });
    add_call("fill_poison", [](const Json& a) {
        fill_poison(pointer<float>(a.at("data")), a.at("n").get<std::size_t>());
        return Json();
    });
    add_call("check_workload_output", [](const Json& a) {
        return Json(check_workload_output(pointer<const float>(a.at("input")), pointer<const float>(a.at("output")),
                                          a.at("n").get<std::size_t>(), a.at("iterations").get<int>(),
                                          a.at("chunks").get<int>()));
    });
    add_call("chunk_range", [](const Json& a) {
        const ChunkRange range =
            chunk_range(a.at("n").get<std::size_t>(), a.at("chunks").get<int>(), a.at("index").get<int>());
        return Json::array({range.offset, range.count});
    });
    add_call("iterations_for_kernel_ms", [](const Json& a) {
        return Json(iterations_for_kernel_ms(a.at("n").get<std::size_t>(), a.at("target_ms").get<double>(),
                                             a.at("max_blocks").get<int>()));
    });
    add_call("measure_h2d_ms", [](const Json& a) { return Json(measure_h2d_ms(a.at("bytes").get<std::size_t>())); });
}

template <typename Buffer>
Json buffer_fields(const Buffer& buffer) {
    return Json{{"address", address(buffer.data())}, {"n", buffer.size()}, {"nbytes", buffer.bytes()}};
}

Json memory_fields(const PipelineMemory& memory) {
    return Json{{"input", address(memory.input.data())},
                {"output", address(memory.output.data())},
                {"device_input", address(memory.device_input.data())},
                {"device_output", address(memory.device_output.data())},
                {"n", memory.size()}};
}

void add_memory_calls() {
    add_call("PinnedFloats", [](const Json& a) {
        auto buffer = std::make_shared<PinnedBuffer<float>>(a.at("n").get<std::size_t>());
        return keep("PinnedFloats", buffer, buffer_fields(*buffer));
    });
    add_call("DeviceFloats", [](const Json& a) {
        auto buffer = std::make_shared<DeviceBuffer<float>>(a.at("n").get<std::size_t>());
        return keep("DeviceFloats", buffer, buffer_fields(*buffer));
    });
    add_call("pipeline_elements",
             [](const Json& a) { return Json(pipeline_elements(a.at("total_memory_bytes").get<std::size_t>())); });
    add_call("PipelineMemory", [](const Json& a) {
        auto memory = std::make_shared<PipelineMemory>(a.at("n").get<std::size_t>());
        return keep("PipelineMemory", memory, memory_fields(*memory));
    });
    add_call("prepare_pipeline", [](const Json& a) {
        auto prepared = std::make_shared<PreparedPipeline>(
            prepare_pipeline(a.at("facts").get<DeviceFacts>(), a.at("kernel_to_copy").get<double>()));
        // The memory is the prepared pipeline's: kept through it, alive as long as either is.
        const std::shared_ptr<PipelineMemory> memory(prepared, &prepared->memory);
        Json fields{{"iterations", prepared->iterations},
                    {"memory", keep("PipelineMemory", memory, memory_fields(*memory))}};
        return keep("PreparedPipeline", prepared, fields);
    });
    add_call("run_serial_reference", [](const Json& a) {
        return Json(run_serial_reference(kept<PipelineMemory>(a.at("memory"), "PipelineMemory"),
                                         a.at("iterations").get<int>()));
    });
    add_call("measure_link_sharing", [](const Json& a) {
        return Json(measure_link_sharing(kept<PipelineMemory>(a.at("memory"), "PipelineMemory")));
    });
}

void add_chunk_calls() {
    add_call("find_chunks", [](const Json& a) { return Json(find_chunks(a.at("ops").get<Ops>())); });
    add_call("chunks_by_issue_order", [](const Json& a) {
        return Json(chunks_by_issue_order(a.at("ops").get<Ops>(), a.at("chunks").get<int>()));
    });
    add_call("issue_order", [](const Json& a) {
        return Json(issue_order(a.at("ops").get<Ops>()) == IssueOrder::StageByStage ? "stage" : "chunk");
    });
    add_call("modelled_ops",
             [](const Json& a) { return Json(modelled_ops(a.at("simulated").get<std::vector<SimulatedOp>>())); });
    add_call("last_event_waits_for_all", [](const Json& a) {
        const Timeline timeline = a.at("timeline").get<Timeline>();
        const LastEventOrder order = order_of_last_event(timeline.stream_calls);
        return Json::array({order.recorded && order.not_ordered.empty(), order.describe(timeline.stream_calls)});
    });
    add_call("compare_with_model", [](const Json& a) {
        return Json(compare_with_model(a.at("serial").get<Timeline>(), a.at("pipelined").get<Timeline>(),
                                       a.at("chunks").get<int>(), a.at("copy_engines").get<int>()));
    });
}

// What Python hands record_pipeline_run: a C function it made with ctypes, called
// with the memory (a kept object's JSON text) and the iterations; non-zero when
// the Python function raised (the exception waits on the Python side).
using PipelinedFunction = int (*)(const char* memory, int iterations);

void add_run_calls() {
    add_call("record_pipeline_run", [](const Json& a) {
        const auto pipelined = reinterpret_cast<PipelinedFunction>(a.at("pipelined").get<std::uintptr_t>());
        const PipelineRun run = record_pipeline_run(
            a.at("chunks").get<int>(),
            [pipelined](PipelineMemory& memory, int iterations) {
                // Lent for the call only: the run owns the memory.
                const std::shared_ptr<PipelineMemory> lent(&memory, [](PipelineMemory*) {});
                const Json lent_memory = keep("PipelineMemory", lent, memory_fields(memory));
                const int failed = pipelined(lent_memory.dump().c_str(), iterations);
                release_object(lent_memory);
                if (failed != 0) {
                    throw std::runtime_error("the pipelined function raised an exception");
                }
            },
            a.at("kernel_to_copy").get<double>());
        return Json{{"__class__", "PipelineRun"},
                    {"serial", run.serial},
                    {"pipelined", run.pipelined},
                    {"result", run.result},
                    {"comparison", run.comparison}};
    });
    add_call("report_timeline", [](const Json& a) {
        LabOptions options;
        options.trace_path = a.at("trace_path").get<std::string>();
        report_timeline(a.at("timeline").get<Timeline>(), a.at("title").get<std::string>(), options,
                        a.at("variant").get<std::string>());
        std::fflush(stdout);  // before Python prints again
        return Json();
    });
}

}  // namespace

void add_pipeline_calls() {
    add_device_calls();
    add_workload_calls();
    add_memory_calls();
    add_chunk_calls();
    add_run_calls();
}

}  // namespace streamlab::without_headers
