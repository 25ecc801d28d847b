// Lab 06's course side through the C interface (the module's bind_many_chunks.cpp,
// streamlab.lab06): the rings of pinned and device buffers, the host that fills and
// drains them and times every use on the timeline's clock (labs/06-many-chunks/
// host_side.hpp), and the grader's questions about those records (ring_timeline.hpp).
// The rings, the host and the jobs own memory: they stay here, kept; the records
// and the answers travel as JSON.
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "c_library.hpp"
#include "host_side.hpp"
#include "json_values.hpp"
#include "ring_addresses.hpp"
#include "ring_timeline.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/workload.hpp"

// ---------------------------------------------------------------- lab 06's values as JSON
// Beside the types (namespace lab06::course), where nlohmann's get<> finds them.

namespace lab06::course {

using Json = nlohmann::json;

void to_json(Json& json, const RingShape& shape) {
    json = Json{{"__class__", "RingShape"},
                {"chunks", shape.chunks},
                {"staging", shape.staging},
                {"results", shape.results},
                {"device_sets", shape.device_sets}};
}

void from_json(const Json& json, RingShape& shape) {
    json.at("chunks").get_to(shape.chunks);
    json.at("staging").get_to(shape.staging);
    json.at("results").get_to(shape.results);
    json.at("device_sets").get_to(shape.device_sets);
}

void to_json(Json& json, const HostUse& use) {
    json = Json{{"__class__", "HostUse"}, {"offset", use.offset},     {"count", use.count},
                {"slot", use.slot},       {"start_ns", use.start_ns}, {"end_ns", use.end_ns}};
}

void from_json(const Json& json, HostUse& use) {
    json.at("offset").get_to(use.offset);
    json.at("count").get_to(use.count);
    json.at("slot").get_to(use.slot);
    json.at("start_ns").get_to(use.start_ns);
    json.at("end_ns").get_to(use.end_ns);
}

void to_json(Json& json, const RecordedChunk& chunk) {
    json = Json{{"__class__", "RecordedChunk"}, {"fill", chunk.fill}, {"ops", chunk.ops}, {"drain", chunk.drain}};
}

// Python hands back the chunks pair_chunks gave it: their ops are read here, field by
// field, as json_values reads a ChunkOps nowhere else.
void from_json(const Json& json, RecordedChunk& chunk) {
    json.at("fill").get_to(chunk.fill);
    const Json& ops = json.at("ops");
    ops.at("h2d").get_to(chunk.ops.h2d);
    ops.at("kernel").get_to(chunk.ops.kernel);
    ops.at("d2h").get_to(chunk.ops.d2h);
    json.at("drain").get_to(chunk.drain);
}

void to_json(Json& json, const RecordedRun& run) {
    json = Json{{"__class__", "RecordedRun"}, {"chunks", run.chunks}, {"problem", run.problem}};
}

void to_json(Json& json, const RunSpan& span) {
    json = Json{{"__class__", "RunSpan"},
                {"fills", span.fills},
                {"start_ns", span.start_ns},
                {"end_ns", span.end_ns},
                {"ms()", span.ms()}};
}

}  // namespace lab06::course

namespace streamlab::without_headers {

namespace {

using lab06::StreamingJob;
using lab06::course::HostStream;
using lab06::course::HostUse;
using lab06::course::RecordedChunk;
using lab06::course::Rings;
using lab06::course::RingShape;

/// A job and what its produce and consume refer to: the host and the rings live as
/// long as the job does (the module's keep_alive on HostStream.job).
struct CourseJob {
    std::shared_ptr<HostStream> host;
    std::shared_ptr<Rings> rings;
    StreamingJob job;
};

/// The kept object behind `value` itself, to share it (kept<T> only lends it).
template <typename T>
std::shared_ptr<T> kept_shared(const Json& value, const std::string& type) {
    return std::static_pointer_cast<T>(kept_object(value, type).object);
}

/// A job's read-only fields, as the module's CourseJob has them.
Json job_fields(const StreamingJob& job) {
    Json device = Json::array();
    for (const lab06::DeviceSet& set : job.device) {
        device.push_back(Json::array({address(set.input), address(set.output)}));
    }
    return Json{{"n", job.n},
                {"chunks", job.chunks},
                {"iterations", job.iterations},
                {"capacity", job.capacity},
                {"staging", python::ring_addresses(job.staging)},
                {"results", python::ring_addresses(job.results)},
                {"device", device}};
}

void add_rings_calls() {
    // RingShape() has the defaults; given any field, all four are needed (the module's two constructors).
    add_call("lab06.RingShape", [](const Json& a) { return Json(a.empty() ? RingShape{} : a.get<RingShape>()); });
    add_call("lab06.Rings", [](const Json& a) {
        auto rings = std::make_shared<Rings>(a.at("capacity").get<std::size_t>(), a.at("shape").get<RingShape>());
        return keep("Rings", rings, Json{{"capacity", rings->capacity}});
    });
    add_call("lab06.capacity_for", [](const Json& a) {
        return Json(
            lab06::course::capacity_for(a.at("n").get<std::size_t>(), a.at("chunk_counts").get<std::vector<int>>()));
    });
}

void add_job_calls() {
    // Called for every chunk: the job comes as its bare handle, not its fields.
    add_call("lab06.CourseJob.produce", [](const Json& a) {
        const StreamingJob& job = kept<CourseJob>(a.at("job"), "CourseJob").job;
        job.produce(
            a.at("offset").get<std::size_t>(), a.at("count").get<std::size_t>(),
            python::ring_buffer_at(job.staging, a.at("staging").get<std::uintptr_t>(), "produce", "job.staging"));
        return Json();
    });
    add_call("lab06.CourseJob.consume", [](const Json& a) {
        const StreamingJob& job = kept<CourseJob>(a.at("job"), "CourseJob").job;
        job.consume(
            a.at("offset").get<std::size_t>(), a.at("count").get<std::size_t>(),
            python::ring_buffer_at(job.results, a.at("results").get<std::uintptr_t>(), "consume", "job.results"));
        return Json();
    });
}

void add_host_calls() {
    add_call("lab06.HostUse", [](const Json& a) { return Json(a.get<HostUse>()); });
    add_call("lab06.HostStream", [](const Json& a) {
        auto host = std::make_shared<HostStream>(a.at("n").get<std::size_t>());
        return keep("HostStream", host, Json{{"n", host->input.size()}});
    });
    add_call("lab06.HostStream.job", [](const Json& a) {
        auto job = std::make_shared<CourseJob>();
        job->host = kept_shared<HostStream>(a.at("host"), "HostStream");
        job->rings = kept_shared<Rings>(a.at("rings"), "Rings");
        job->job = job->host->job(*job->rings, a.at("chunks").get<int>(), a.at("iterations").get<int>());
        return keep("CourseJob", job, job_fields(job->job));
    });
    add_call("lab06.HostStream.slow_down", [](const Json& a) {
        kept<HostStream>(a.at("host"), "HostStream").slow_down(a.at("extra_ns").get<std::uint64_t>());
        return Json();
    });
    add_call("lab06.HostStream.reset", [](const Json& a) {
        kept<HostStream>(a.at("host"), "HostStream").reset();
        return Json();
    });
    add_call("lab06.HostStream.fills", [](const Json& a) {
        return Json(kept<HostStream>(a.at("host"), "HostStream").fills(a.at("origin_ns").get<std::uint64_t>()));
    });
    add_call("lab06.HostStream.drains", [](const Json& a) {
        return Json(kept<HostStream>(a.at("host"), "HostStream").drains(a.at("origin_ns").get<std::uint64_t>()));
    });
    add_call("lab06.HostStream.measure_alone", [](const Json& a) {
        HostStream& host = kept<HostStream>(a.at("host"), "HostStream");
        const HostStream::AloneMs alone =
            host.measure_alone(kept<Rings>(a.at("rings"), "Rings"), a.at("chunks").get<int>());
        return Json::array({alone.fill, alone.drain});
    });
    add_call("lab06.HostStream.check_output", [](const Json& a) {
        const HostStream& host = kept<HostStream>(a.at("host"), "HostStream");
        return Json(check_workload_output(host.input.data(), host.output.data(), host.input.size(),
                                          a.at("iterations").get<int>(), a.at("chunks").get<int>()));
    });
    // The GPU's stages and the shared link for the whole input, alone: what the model needs.
    add_call("lab06.HostStream.measure_gpu_alone", [](const Json& a) {
        const HostStream& host = kept<HostStream>(a.at("host"), "HostStream");
        PipelineMemory memory(host.input.size());
        std::memcpy(memory.input.data(), host.input.data(), memory.input.bytes());
        const SerialReference serial = run_serial_reference(memory, a.at("iterations").get<int>());
        const LinkSharing link = measure_link_sharing(memory);
        return Json::array({Json(serial), Json(link)});
    });
}

void add_question_calls() {
    add_call("lab06.pair_chunks", [](const Json& a) {
        return Json(lab06::course::pair_chunks(
            a.at("fills").get<std::vector<HostUse>>(), a.at("drains").get<std::vector<HostUse>>(),
            a.at("ops").get<std::vector<DeviceOp>>(), a.at("n").get<std::size_t>(), a.at("chunks").get<int>()));
    });
    add_call("lab06.reuse_hazards", [](const Json& a) {
        return Json(lab06::course::reuse_hazards(a.at("chunks").get<std::vector<RecordedChunk>>(),
                                                 a.at("device_sets").get<int>()));
    });
    add_call("lab06.run_spans", [](const Json& a) {
        return Json(lab06::course::run_spans(a.at("fills").get<std::vector<HostUse>>(),
                                             a.at("drains").get<std::vector<HostUse>>()));
    });
    add_call("lab06.streaming_model_ms", [](const Json& a) {
        const auto [h2d, kernel, d2h] = a.at("gpu_stages").get<std::tuple<double, double, double>>();
        return Json(lab06::course::streaming_model_ms(
            {h2d, kernel, d2h}, a.at("fill_ms").get<double>(), a.at("drain_ms").get<double>(),
            a.at("chunks").get<int>(), a.at("sets").get<int>(), a.at("copy_engines").get<int>(),
            issue_order_from_string(a.at("order").get<std::string>()), a.at("link").get<LinkSharing>()));
    });
}

}  // namespace

void add_many_chunks_calls() {
    add_rings_calls();
    add_job_calls();
    add_host_calls();
    add_question_calls();
}

}  // namespace streamlab::without_headers
