// The C interface of libstreamlab_c.so (c_library.hpp): the call table, the kept
// objects, and C++ exceptions turned into the names of Python's.
#include "c_library.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "streamlab/check.hpp"
#include "streamlab/trace_format_error.hpp"
#include "streamlab/tracer.hpp"

namespace streamlab::without_headers {

namespace {

std::map<std::string, Call>& calls() {
    static std::map<std::string, Call> table;
    return table;
}

std::mutex g_kept_mutex;
std::map<std::uint64_t, KeptObject> g_kept;
std::uint64_t g_next_handle = 1;

void add_all_calls() {
    add_timeline_calls();
    add_pipeline_calls();
    add_tracer_calls();
    add_batches_calls();
#ifdef STREAMLAB_PYTHON_LAB06
    add_many_chunks_calls();
#endif
#ifdef STREAMLAB_PYTHON_LAB07
    add_dependencies_calls();
#endif
    add_call("release", [](const Json& arguments) {
        release_object(arguments.at("handle"));
        return Json();
    });
    add_call("calls", [](const Json&) {
        Json names = Json::array();
        for (const auto& [name, call] : calls()) {
            names.push_back(name);
        }
        return names;
    });
}

// The Python exception a C++ one becomes (as nanobind maps them for the module).
std::string python_error_of(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const TraceFormatError&) {
        return "TraceFormatError";
    } catch (const TimelineUnavailable&) {
        return "TimelineUnavailable";
    } catch (const nlohmann::json::exception&) {
        return "TypeError";  // an argument of the wrong type or missing
    } catch (const std::invalid_argument&) {
        return "ValueError";
    } catch (const std::domain_error&) {
        return "ValueError";
    } catch (const std::out_of_range&) {
        return "IndexError";
    } catch (...) {
        return "RuntimeError";
    }
}

std::string message_of(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& exception) {
        return exception.what();
    } catch (...) {
        return "unknown error";
    }
}

char* copy_out(const std::string& text) {
    char* copy = static_cast<char*>(std::malloc(text.size() + 1));
    if (copy != nullptr) {
        std::memcpy(copy, text.c_str(), text.size() + 1);
    }
    return copy;
}

}  // namespace

void add_call(const std::string& name, Call call) {
    calls()[name] = std::move(call);
}

Json keep_object(const std::string& type, std::shared_ptr<void> object, Json fields) {
    const std::lock_guard<std::mutex> lock(g_kept_mutex);
    const std::uint64_t handle = g_next_handle++;
    g_kept[handle] = KeptObject{type, std::move(object)};
    fields["__handle__"] = handle;
    fields["__class__"] = type;
    return fields;
}

void release_object(const Json& value) {
    const std::uint64_t handle =
        value.is_object() ? value.at("__handle__").get<std::uint64_t>() : value.get<std::uint64_t>();
    std::shared_ptr<void> last_reference;  // destroyed after the lock is let go: a destructor may take time
    {
        const std::lock_guard<std::mutex> lock(g_kept_mutex);
        const auto found = g_kept.find(handle);
        if (found != g_kept.end()) {
            last_reference = std::move(found->second.object);
            g_kept.erase(found);
        }
    }
}

KeptObject kept_object(const Json& value, const std::string& type) {
    const std::uint64_t handle =
        value.is_object() ? value.at("__handle__").get<std::uint64_t>() : value.get<std::uint64_t>();
    const std::lock_guard<std::mutex> lock(g_kept_mutex);
    const auto found = g_kept.find(handle);
    if (found == g_kept.end() || found->second.type != type) {
        throw std::invalid_argument("expected a " + type + " of the course's (handle " + std::to_string(handle) + ")");
    }
    return found->second;
}

}  // namespace streamlab::without_headers

using streamlab::without_headers::Json;

/// Runs the call `name` with `arguments` (a JSON object). Returns JSON text to be
/// freed with streamlab_free: {"value": result} or {"error": "ValueError", "message": "..."}.
extern "C" __attribute__((visibility("default"))) char* streamlab_call(const char* name, const char* arguments) {
    namespace here = streamlab::without_headers;
    static std::once_flag added;
    std::call_once(added, here::add_all_calls);
    Json reply;
    try {
        const auto found = here::calls().find(name);
        if (found == here::calls().end()) {
            throw std::invalid_argument(std::string("libstreamlab_c has no call named ") + name);
        }
        reply["value"] = found->second(Json::parse(arguments));
    } catch (...) {
        const std::exception_ptr error = std::current_exception();
        reply = Json{{"error", here::python_error_of(error)}, {"message", here::message_of(error)}};
    }
    return here::copy_out(reply.dump(-1, ' ', false, Json::error_handler_t::replace));
}

/// Frees a text streamlab_call returned.
extern "C" __attribute__((visibility("default"))) void streamlab_free(char* text) {
    std::free(text);
}
