// Lab 07's course side through the C interface, as the calls "lab07.*" (the module's
// bind_dependencies.cpp): the host that consumes each chunk's results and times
// every call on the timeline's clock (labs/07-dependencies-and-graphs/course_side.hpp),
// and Task 4's background and urgent kernels (priority_side.hpp).
//
// The consumer is the module's (python/host_consumer.hpp): its host function is the
// course's C++ function, so CUDA's thread never waits for the interpreter.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "c_library.hpp"
#include "course_side.hpp"
#include "host_consumer.hpp"
#include "json_values.hpp"
#include "priority_side.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/workload.hpp"

namespace lab07::course {

// Beside the type, where nlohmann's lookup finds it.
void to_json(streamlab::Json& json, const Consumption& call) {
    json = streamlab::Json{{"__class__", "Consumption"},
                           {"chunk", call.chunk},
                           {"start_ns", call.start_ns},
                           {"end_ns", call.end_ns},
                           {"thread", call.thread}};
}

void to_json(streamlab::Json& json, const UrgentWait& wait) {
    json = streamlab::Json{{"__class__", "UrgentWait"},
                           {"problem", wait.problem},
                           {"background_ns", wait.background_ns},
                           {"wait_ns", wait.wait_ns},
                           {"share", wait.share()}};
}

}  // namespace lab07::course

namespace streamlab::without_headers {

namespace {

/// The course's consumer with the memory it reads: Python may drop its own first,
/// as the module's keep_alive allows.
struct KeptConsumer {
    KeptConsumer(std::shared_ptr<PipelineMemory> kept_memory, int iterations, int chunks)
        : memory(std::move(kept_memory)), consumer(*memory, iterations, chunks) {}
    std::shared_ptr<PipelineMemory> memory;  // declared first: destroyed after the consumer that reads it
    python::HostConsumer consumer;
};

/// The kept consumer's type, and the name of the call that makes one.
const char* const kConsumer = "lab07.HostConsumer";

python::HostConsumer& consumer_in(const Json& arguments) {
    return kept<KeptConsumer>(arguments.at("consumer"), kConsumer).consumer;
}

/// Task 4's kernels, and the name of the call that makes them.
const char* const kPriorityDemo = "lab07.PriorityDemo";

lab07::course::PriorityDemo& demo_in(const Json& arguments) {
    return kept<lab07::course::PriorityDemo>(arguments.at("demo"), kPriorityDemo);
}

}  // namespace

void add_dependencies_calls() {
    add_call(kConsumer, [](const Json& a) {
        auto memory = std::static_pointer_cast<PipelineMemory>(kept_object(a.at("memory"), "PipelineMemory").object);
        auto consumer =
            std::make_shared<KeptConsumer>(std::move(memory), a.at("iterations").get<int>(), a.at("chunks").get<int>());
        // cudaLaunchHostFunc's fn: the same address for every consumer, a field rather than a call.
        const Json fields{{"host_function", python::HostConsumer::host_function()}};
        return keep(kConsumer, consumer, fields);
    });
    add_call("lab07.HostConsumer.user_data",
             [](const Json& a) { return Json(consumer_in(a).user_data(a.at("chunk").get<int>())); });
    add_call("lab07.HostConsumer.consume", [](const Json& a) {
        consumer_in(a).consume(a.at("chunk").get<int>());
        return Json();
    });
    add_call("lab07.HostConsumer.reset", [](const Json& a) {
        consumer_in(a).reset();
        return Json();
    });
    add_call("lab07.HostConsumer.consumptions",
             [](const Json& a) { return Json(consumer_in(a).consumptions(a.at("origin_ns").get<std::uint64_t>())); });
    add_call("lab07.HostConsumer.check",
             [](const Json& a) { return Json(consumer_in(a).check(a.at("chunks").get<int>())); });
    add_call(kPriorityDemo,
             [](const Json&) { return keep(kPriorityDemo, std::make_shared<lab07::course::PriorityDemo>()); });
    add_call("lab07.PriorityDemo.fill_gpu", [](const Json& a) {
        demo_in(a).work().fill_gpu(pointer<CUstream_st>(a.at("stream")));
        return Json();
    });
    add_call("lab07.PriorityDemo.launch", [](const Json& a) {
        demo_in(a).work().launch(pointer<CUstream_st>(a.at("stream")));
        return Json();
    });
    add_call("lab07.PriorityDemo.launched_ns",
             [](const Json& a) { return Json(demo_in(a).launched_ns(a.at("origin_ns").get<std::uint64_t>())); });
    add_call("lab07.PriorityDemo.describe", [](const Json& a) { return Json(demo_in(a).describe()); });
    add_call("lab07.urgent_wait", [](const Json& a) {
        return Json(
            lab07::course::urgent_wait(a.at("timeline").get<Timeline>(), a.at("launched_ns").get<std::uint64_t>()));
    });
}

}  // namespace streamlab::without_headers
