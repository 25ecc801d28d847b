// Lab 07's course side through the C interface, as the calls "lab07.*" (the module's
// bind_dependencies.cpp): the host that consumes each chunk's results and times
// every call on the timeline's clock (labs/07-dependencies-and-graphs/course_side.hpp).
//
// The host function stays a C++ function of the course's, as in the module: CUDA's
// thread calls HostConsumer::deliver with a chunk's delivery record, and consumes
// the chunk without any Python, so it never waits for the interpreter.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "c_library.hpp"
#include "course_side.hpp"
#include "json_values.hpp"
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

}  // namespace lab07::course

namespace streamlab::without_headers {

namespace {

using lab07::course::Consumption;
using lab07::course::ResultsConsumer;

/// The course's consumer of a pipeline run, with one delivery record per chunk
/// for the host functions: they live as long as the consumer does. It holds the
/// memory too, as the module's keep_alive does: Python may drop its own first.
class HostConsumer {
public:
    HostConsumer(std::shared_ptr<PipelineMemory> memory, int iterations, int chunks)
        : memory_(std::move(memory)),
          job_(job_over<lab07::PipelineJob>(*memory_, iterations)),
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
    std::shared_ptr<PipelineMemory> memory_;  // declared first: destroyed after everything that reads it
    lab07::PipelineJob job_;
    std::unique_ptr<ResultsConsumer> consumer_;
    lab07::Consumer consume_;
    std::vector<Delivery> deliveries_;  // never resized after construction: the addresses stay valid
};

/// The kept consumer's type, and the name of the call that makes one.
const char* const kConsumer = "lab07.HostConsumer";

HostConsumer& consumer_in(const Json& arguments) {
    return kept<HostConsumer>(arguments.at("consumer"), kConsumer);
}

}  // namespace

void add_dependencies_calls() {
    add_call(kConsumer, [](const Json& a) {
        auto memory = std::static_pointer_cast<PipelineMemory>(kept_object(a.at("memory"), "PipelineMemory").object);
        auto consumer =
            std::make_shared<HostConsumer>(std::move(memory), a.at("iterations").get<int>(), a.at("chunks").get<int>());
        // cudaLaunchHostFunc's fn: the same address for every consumer, a field rather than a call.
        const Json fields{{"host_function", address(reinterpret_cast<void*>(&HostConsumer::deliver))}};
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
}

}  // namespace streamlab::without_headers
