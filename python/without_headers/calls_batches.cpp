// Lab 04's batches through the C interface (the module's bind_batches.cpp): the host
// buffers, the host's marked work, another stream's kernel, and the batches read
// back from a timeline. The buffers, the work and the kernel stay here, kept; their
// methods are calls of their own ("BatchBuffers.check", ...).
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "c_library.hpp"
#include "json_values.hpp"
#include "streamlab/batches.hpp"

namespace streamlab {

// Lab 04's values, here rather than in json_values.*: only these calls make them.
void to_json(Json& json, const BatchOnTimeline& batch) {
    json = Json{{"__class__", "BatchOnTimeline"},
                {"h2d", batch.h2d},
                {"kernel", batch.kernel},
                {"d2h", batch.d2h},
                {"queued_ns", batch.queued_ns},
                {"host_done_ns", batch.host_done_ns},
                {"device_busy_on_return()", batch.device_busy_on_return()},
                {"host_work_ns()", batch.host_work_ns()},
                {"device_span_ns()", batch.device_span_ns()},
                {"host_device_overlap_ns()", batch.host_device_overlap_ns()}};
}

void to_json(Json& json, const BatchesOnTimeline& found) {
    json = Json{{"__class__", "BatchesOnTimeline"}, {"batches", found.batches}, {"problem", found.problem}};
}

}  // namespace streamlab

namespace streamlab::without_headers {

namespace {

/// marked_host_work's function, kept with the buffers it works on: the module keeps
/// them alive for as long as the work lives (keep_alive), and so does this.
struct HostWork {
    std::shared_ptr<void> buffers;  // declared first: destroyed after the work that refers to it
    std::function<void(int)> work;
};

void add_buffers_calls() {
    add_call("BatchBuffers", [](const Json& a) {
        auto buffers = std::make_shared<BatchBuffers>(a.at("count").get<int>(), a.at("n").get<std::size_t>(),
                                                      a.at("pinned").get<bool>());
        return keep("BatchBuffers", buffers,
                    Json{{"count", buffers->count()}, {"n", buffers->size()}, {"pinned", buffers->pinned()}});
    });
    // input and output check the batch (std::out_of_range, Python's IndexError), as the module's do.
    add_call("BatchBuffers.input", [](const Json& a) {
        return Json(address(kept<BatchBuffers>(a.at("buffers"), "BatchBuffers").input(a.at("batch").get<int>())));
    });
    add_call("BatchBuffers.output", [](const Json& a) {
        return Json(address(kept<BatchBuffers>(a.at("buffers"), "BatchBuffers").output(a.at("batch").get<int>())));
    });
    add_call("BatchBuffers.reset", [](const Json& a) {
        kept<BatchBuffers>(a.at("buffers"), "BatchBuffers").reset(a.at("prepare_all").get<bool>());
        return Json();
    });
    add_call("BatchBuffers.check", [](const Json& a) {
        return Json(kept<BatchBuffers>(a.at("buffers"), "BatchBuffers")
                        .check(a.at("batch").get<int>(), a.at("iterations").get<int>()));
    });
}

void add_host_work_calls() {
    add_call("marked_host_work", [](const Json& a) {
        std::shared_ptr<void> buffers = kept_object(a.at("buffers"), "BatchBuffers").object;
        auto work = std::make_shared<HostWork>();
        work->work = marked_host_work(*static_cast<BatchBuffers*>(buffers.get()), a.at("prepare_next").get<bool>());
        work->buffers = std::move(buffers);
        return keep("HostWork", work);
    });
    // The marks are made here, in C++: the time the call takes to get here comes before
    // the first mark, never between the two.
    add_call("HostWork.call", [](const Json& a) {
        kept<HostWork>(a.at("host_work"), "HostWork").work(a.at("batch").get<int>());
        return Json();
    });
}

void add_background_calls() {
    add_call("BackgroundKernel", [](const Json& a) {
        return keep("BackgroundKernel",
                    std::make_shared<BackgroundKernel>(a.at("ms").get<double>(), a.at("facts").get<DeviceFacts>()));
    });
    add_call("BackgroundKernel.launch", [](const Json& a) {
        kept<BackgroundKernel>(a.at("kernel"), "BackgroundKernel").launch();
        return Json();
    });
    add_call("BACKGROUND_LABEL", [](const Json&) { return Json(kBackgroundLabel); });
}

void add_found_batches_calls() {
    add_call("find_batches", [](const Json& a) {
        return Json(find_batches(a.at("timeline").get<Timeline>(), a.at("count").get<int>(),
                                 a.at("bytes").get<std::uint64_t>()));
    });
    add_call("unlabelled_ops",
             [](const Json& a) { return Json(unlabelled_ops(a.at("ops").get<std::vector<DeviceOp>>())); });
}

}  // namespace

void add_batches_calls() {
    add_buffers_calls();
    add_host_work_calls();
    add_background_calls();
    add_found_batches_calls();
}

}  // namespace streamlab::without_headers
