// The recording behind streamlab.record, through the C interface (the module's
// bind_tracer.cpp). CUPTI records in this process, with the same recorder the
// injection library uses; nothing needs to be preloaded.
#include <memory>
#include <string>

#include "c_library.hpp"
#include "json_values.hpp"
#include "streamlab/tracer.hpp"

namespace streamlab::without_headers {

void add_tracer_calls() {
    // Starts a recording: {"__handle__": ...} of the tracer, or {"off": why} while the tracer is off.
    add_call("record.start", [](const Json& a) {
        const std::string off = tracing_off_reason();
        if (!off.empty()) {
            return Json{{"off", off}};
        }
        return keep("Tracer", std::make_shared<Tracer>(a.at("program").get<std::string>()));
    });
    // Ends the recording started as `recording` and returns its timeline.
    add_call("record.finish", [](const Json& a) {
        const Json& recording = a.at("recording");
        if (recording.contains("off")) {
            return Json(
                unrecorded_timeline(a.at("program").get<std::string>(), recording.at("off").get<std::string>()));
        }
        Timeline timeline = kept<Tracer>(recording, "Tracer").finish();
        release_object(recording);
        return Json(timeline);
    });
    // Ends the recording started as `recording` and discards what it recorded.
    add_call("record.discard", [](const Json& a) {
        if (!a.at("recording").contains("off")) {
            release_object(a.at("recording"));
        }
        return Json();
    });
    add_call("host_thread_id", [](const Json&) { return Json(host_thread_id()); });
    add_call("mark", [](const Json& a) {
        host_mark(a.at("name").get<std::string>());
        return Json();
    });
    add_call("tracing_off_reason", [](const Json&) { return Json(tracing_off_reason()); });
}

}  // namespace streamlab::without_headers
