// Stream capture and CUDA graphs (see runtime_graphs.hpp).
//
// What the Programming Guide ("CUDA Graphs", "Creating a Graph Using Stream Capture") and the Runtime API
// document, and this file does:
//  - between cudaStreamBeginCapture and cudaStreamEndCapture, work issued to the stream is not run but
//    recorded as the nodes of a graph, each node after the stream's previous one;
//  - cross-stream capture: recording an event in a captured stream and making another stream wait for it
//    brings that stream into the capture (a fork), its nodes after the event's point; the capture may end
//    only in the stream that began it, and only once every stream it forked is joined back into that one
//    (cudaErrorStreamCaptureUnjoined otherwise);
//  - cudaGraphInstantiate makes an executable graph, which stays valid after the graph is destroyed;
//  - cudaGraphLaunch runs the whole graph in a stream: after the stream's work so far, and before its later
//    work, each node after the nodes it depends on (so nodes of different branches may run at once).
// As CUPTI shows a graph's launch, its nodes run in streams of the runtime's own, not in the stream it was
// launched in: here one per stream the capture recorded from (a "lane"), made when the graph is instantiated.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "machine.hpp"
#include "runtime_graphs.hpp"

namespace streamlab::simgpu {
namespace {

/// One node of a captured graph.
struct CapturedNode {
    OpRequest request;               ///< The op as its stream issued it.
    std::vector<std::size_t> after;  ///< The nodes it waits for (indices of earlier nodes).
    OpWork work;                     ///< Its CPU work, done at each launch (none for markers).
    std::size_t lane = 0;            ///< The capture's stream it came from, by order of joining (origin: 0).
};

/// Where an event was recorded in a capture.
struct CapturePoint {
    std::vector<std::size_t> nodes;  ///< What a wait for the event waits for.
    /// The event's last record outside any capture when it was recorded here (Event::recorded): a record
    /// made outside since then is the one a wait names.
    OpId outside_record = 0;
};

/// A capture in progress: the nodes so far, and for every stream in it, the nodes its next node waits for.
struct Capture {
    cudaStream_t origin = nullptr;  ///< The stream that began it: the one stream that may end it.
    std::vector<CapturedNode> nodes;
    /// Per stream in the capture: the nodes its next node waits for (its "capture dependencies").
    std::map<cudaStream_t, std::vector<std::size_t>> frontier;
    /// Per stream in the capture: its lane (CapturedNode::lane).
    std::map<cudaStream_t, std::size_t> lane;
    /// Per event recorded in the capture: the point of its last record (what a wait for it waits for).
    std::map<cudaEvent_t, CapturePoint> event_points;
    /// The CPU work that the next node recorded takes (defer_to_capture, then Machine::enqueue).
    OpWork pending_work;
};

/// Captures open now, for cudaStreamWaitEvent to find the capture an event was recorded in. Used with the
/// machine's lock held, as everything in this file is.
std::vector<std::weak_ptr<Capture>>& open_captures() {
    static std::vector<std::weak_ptr<Capture>> captures;
    return captures;
}

std::shared_ptr<Capture> capture_of(const Stream& stream) {
    return std::static_pointer_cast<Capture>(stream.capture);
}

/// Adds `nodes` to `frontier`, each once.
void add_to_frontier(std::vector<std::size_t>& frontier, const std::vector<std::size_t>& nodes) {
    for (const std::size_t node : nodes) {
        if (std::find(frontier.begin(), frontier.end(), node) == frontier.end()) {
            frontier.push_back(node);
        }
    }
}

/// Records the op `stream` issued as the capture's next node (the machine's CaptureRecorder). An event
/// record or wait makes no node: it marks a point of the capture, or makes the stream's next node wait for
/// one.
void record_node(Stream& stream, OpRequest request) {
    const std::shared_ptr<Capture> capture = capture_of(stream);
    if (request.marker == Marker::EventRecord && request.event != nullptr) {
        capture->event_points[request.event->handle] = {capture->frontier[stream.handle], request.event->recorded};
        return;
    }
    if (request.marker == Marker::EventWait && request.event != nullptr) {
        // An event recorded outside the capture orders nothing inside the graph.
        const auto point = capture->event_points.find(request.event->handle);
        if (point != capture->event_points.end()) {
            add_to_frontier(capture->frontier[stream.handle], point->second.nodes);
        }
        return;
    }
    CapturedNode node;
    node.after = capture->frontier[stream.handle];
    // Ops of the running program are outside the graph: a graph's nodes depend on its nodes only.
    request.extra_dependencies.clear();
    node.request = std::move(request);
    node.work = std::exchange(capture->pending_work, nullptr);
    node.lane = capture->lane.emplace(stream.handle, capture->lane.size()).first->second;
    capture->nodes.push_back(std::move(node));
    capture->frontier[stream.handle] = {capture->nodes.size() - 1};
}

/// Every node that `from` waits for, directly or not, and `from` itself.
std::set<std::size_t> with_ancestors(const std::vector<CapturedNode>& nodes, const std::vector<std::size_t>& from) {
    std::set<std::size_t> reached;
    std::vector<std::size_t> to_visit = from;
    while (!to_visit.empty()) {
        const std::size_t node = to_visit.back();
        to_visit.pop_back();
        if (reached.insert(node).second) {
            to_visit.insert(to_visit.end(), nodes[node].after.begin(), nodes[node].after.end());
        }
    }
    return reached;
}

/// Whether every stream the capture forked is joined back into its origin: each one's last nodes come
/// before the origin's.
bool all_joined(const Capture& capture) {
    const std::set<std::size_t> before_origin = with_ancestors(capture.nodes, capture.frontier.at(capture.origin));
    for (const auto& [stream, last_nodes] : capture.frontier) {
        for (const std::size_t node : last_nodes) {
            if (before_origin.count(node) == 0) {
                return false;
            }
        }
    }
    return true;
}

/// Takes every stream of `capture` out of it.
void end_capture(Machine& machine, const std::shared_ptr<Capture>& capture) {
    for (const auto& [handle, last_nodes] : capture->frontier) {
        Stream* stream = machine.find_stream(handle);
        if (stream != nullptr && stream->capture == capture) {
            stream->capture.reset();
        }
    }
    auto& open = open_captures();
    open.erase(std::remove_if(open.begin(), open.end(),
                              [&capture](const std::weak_ptr<Capture>& each) {
                                  const auto alive = each.lock();
                                  return !alive || alive == capture;
                              }),
               open.end());
}

/// Handle registries: a handle the program holds is valid while it is in its registry.
template <typename Object>
std::map<Object*, std::unique_ptr<Object>>& live() {
    static std::map<Object*, std::unique_ptr<Object>> objects;
    return objects;
}

template <typename Object>
bool is_live(Object* object) {
    return object != nullptr && live<Object>().count(object) != 0;
}

/// Numbers executable graphs as CUPTI does, the same id at every launch.
std::uint32_t next_graph_id() {
    static std::uint32_t last = 0;
    return ++last;
}

}  // namespace

bool defer_to_capture(Stream& stream, OpWork work) {
    if (!stream.capture) {
        return false;
    }
    capture_of(stream)->pending_work = std::move(work);
    return true;
}

bool capture_stream_wait(Stream& stream, const Event& event) {
    // The latest capture that recorded the event, if one is open.
    for (auto each = open_captures().rbegin(); each != open_captures().rend(); ++each) {
        const std::shared_ptr<Capture> capture = each->lock();
        if (!capture) {
            continue;
        }
        const auto point = capture->event_points.find(event.handle);
        if (point == capture->event_points.end() || point->second.outside_record != event.recorded) {
            continue;
        }
        std::vector<std::size_t>& frontier = capture->frontier[stream.handle];
        if (stream.capture != capture) {
            stream.capture = capture;  // the stream joins the capture: its later work is recorded
            frontier.clear();
        }
        add_to_frontier(frontier, point->second.nodes);
        return true;
    }
    return false;
}

}  // namespace streamlab::simgpu

/// A graph made by capture (driver_types.h declares the type; the runtime defines it).
struct CUgraph_st {
    std::vector<streamlab::simgpu::CapturedNode> nodes;
    std::size_t lanes = 1;  ///< The streams the capture recorded from.
};

/// An executable graph: its nodes, the ids CUPTI would give them, and the streams they run in.
struct CUgraphExec_st {
    std::vector<streamlab::simgpu::CapturedNode> nodes;
    std::vector<std::uint64_t> node_ids;
    std::uint32_t graph_id = 0;
    std::vector<cudaStream_t> lanes;  ///< Non-blocking streams of the runtime's own, one per lane.
};

using namespace streamlab::simgpu;

cudaError_t cudaStreamBeginCapture(cudaStream_t handle, cudaStreamCaptureMode mode) {
    ApiCall call("cudaStreamBeginCapture");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    Stream* stream = machine.find_stream(handle);
    if (stream == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
        mode != cudaStreamCaptureModeRelaxed) {
        return call.result(cudaErrorInvalidValue);
    }
    // "Stream capture may not be initiated on the legacy NULL stream."
    if (stream->kind == streamlab::StreamKind::LegacyNull) {
        return call.result(cudaErrorStreamCaptureUnsupported);
    }
    if (stream->capture) {
        return call.result(cudaErrorIllegalState);
    }
    machine.set_capture_recorder(record_node);
    auto capture = std::make_shared<Capture>();
    capture->origin = stream->handle;
    capture->frontier[stream->handle] = {};
    stream->capture = capture;
    open_captures().push_back(capture);
    return call.result(cudaSuccess);
}

cudaError_t cudaStreamEndCapture(cudaStream_t handle, cudaGraph_t* graph) {
    ApiCall call("cudaStreamEndCapture");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    Stream* stream = machine.find_stream(handle);
    if (stream == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    if (graph == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    if (!stream->capture) {
        return call.result(cudaErrorIllegalState);
    }
    const std::shared_ptr<Capture> capture = capture_of(*stream);
    // "The capture must be ended from the stream that began it."
    if (capture->origin != stream->handle) {
        return call.result(cudaErrorStreamCaptureUnmatched);
    }
    end_capture(machine, capture);
    if (!all_joined(*capture)) {
        // A stream forked into the capture never joined back: the capture fails and makes no graph.
        *graph = nullptr;
        return call.result(cudaErrorStreamCaptureUnjoined);
    }
    auto made = std::make_unique<CUgraph_st>();
    made->nodes = std::move(capture->nodes);
    made->lanes = std::max<std::size_t>(1, capture->lane.size());
    *graph = made.get();
    live<CUgraph_st>()[made.get()] = std::move(made);
    return call.result(cudaSuccess);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t handle, cudaStreamCaptureStatus* status) {
    ApiCall call("cudaStreamIsCapturing");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Stream* stream = call.machine().find_stream(handle);
    if (stream == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    if (status == nullptr) {
        return call.result(cudaErrorInvalidValue);
    }
    *status = stream->capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return call.result(cudaSuccess);
}

namespace {

/// cudaGraphInstantiate's work for all three of its forms.
cudaError_t instantiate(ApiCall& call, cudaGraphExec_t* executable, cudaGraph_t graph, unsigned long long flags) {
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    constexpr unsigned long long kKnownFlags = cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                               cudaGraphInstantiateFlagUpload | cudaGraphInstantiateFlagDeviceLaunch |
                                               cudaGraphInstantiateFlagUseNodePriority;
    if (executable == nullptr || !is_live(graph) || (flags & ~kKnownFlags) != 0) {
        return call.result(cudaErrorInvalidValue);
    }
    auto made = std::make_unique<CUgraphExec_st>();
    made->nodes = graph->nodes;  // the executable graph outlives the graph it was made from
    made->graph_id = next_graph_id();
    for (std::size_t i = 0; i < made->nodes.size(); ++i) {
        // CUPTI's node ids: the graph's id in the upper 32 bits, the node's index in the lower.
        made->node_ids.push_back((std::uint64_t{made->graph_id} << 32) | i);
    }
    for (std::size_t lane = 0; lane < graph->lanes; ++lane) {
        made->lanes.push_back(call.machine().create_stream(cudaStreamNonBlocking, 0).handle);
    }
    *executable = made.get();
    live<CUgraphExec_st>()[made.get()] = std::move(made);
    return call.result(cudaSuccess);
}

}  // namespace

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* executable, cudaGraph_t graph, unsigned long long flags) {
    ApiCall call("cudaGraphInstantiate");
    return instantiate(call, executable, graph, flags);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* executable, cudaGraph_t graph, unsigned long long flags) {
    ApiCall call("cudaGraphInstantiateWithFlags");
    return instantiate(call, executable, graph, flags);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* executable, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* parameters) {
    ApiCall call("cudaGraphInstantiateWithParams");
    if (parameters == nullptr) {
        return call.permitted() ? call.result(cudaErrorInvalidValue) : call.result(cudaErrorNotPermitted);
    }
    const cudaError_t made = instantiate(call, executable, graph, parameters->flags);
    parameters->errNode_out = nullptr;
    parameters->result_out = made == cudaSuccess ? cudaGraphInstantiateSuccess : cudaGraphInstantiateError;
    return made;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t executable, cudaStream_t handle) {
    ApiCall call("cudaGraphLaunch");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    Machine& machine = call.machine();
    if (!is_live(executable)) {
        return call.result(cudaErrorInvalidValue);
    }
    Stream* stream = machine.find_stream(handle);
    if (stream == nullptr) {
        return call.result(cudaErrorInvalidResourceHandle);
    }
    if (stream->capture) {
        // A graph launched into a capture would become a child graph node, which the simulator does not model.
        return call.result(cudaErrorStreamCaptureUnsupported);
    }
    // The graph starts after the stream's work so far: a marker that the nodes wait for.
    OpRequest start;
    start.marker = Marker::Join;
    start.becomes_tail = false;
    const OpId started = machine.enqueue(*stream, start);

    std::vector<OpId> node_ops;
    std::string fault;
    for (std::size_t i = 0; i < executable->nodes.size(); ++i) {
        const CapturedNode& node = executable->nodes[i];
        OpRequest request = node.request;
        request.follows_stream = false;  // a node waits for the graph's start and its own dependencies only
        request.becomes_tail = false;
        request.extra_dependencies = {started};
        for (const std::size_t earlier : node.after) {
            request.extra_dependencies.push_back(node_ops[earlier]);
        }
        request.graph_id = executable->graph_id;
        request.graph_node_id = executable->node_ids[i];
        // The node's lane, or the launch's stream where the lane is gone (reset_for_tests).
        Stream* lane = machine.find_stream(executable->lanes[node.lane]);
        if (node.work) {
            const std::string why = node.work(request);
            if (fault.empty()) {
                fault = why;
            }
        }
        node_ops.push_back(machine.enqueue(lane != nullptr ? *lane : *stream, std::move(request)));
    }
    // The stream's later work waits for every node: a join marker becomes its tail.
    OpRequest join;
    join.marker = Marker::Join;
    join.extra_dependencies = node_ops;
    machine.enqueue(*stream, join);
    if (!fault.empty()) {
        std::fprintf(stderr, "simgpu: %s\n", fault.c_str());
        return call.result(cudaErrorIllegalAddress);  // see the same case in runtime_launch.cpp
    }
    return call.result(cudaSuccess);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t executable) {
    ApiCall call("cudaGraphExecDestroy");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    if (!is_live(executable)) {
        return call.result(cudaErrorInvalidValue);
    }
    // Launches already issued still run: their ops were issued at launch, and a destroyed stream's work runs.
    for (const cudaStream_t lane : executable->lanes) {
        if (call.machine().find_stream(lane) != nullptr) {
            call.machine().destroy_stream(lane);
        }
    }
    live<CUgraphExec_st>().erase(executable);
    return call.result(cudaSuccess);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    ApiCall call("cudaGraphDestroy");
    if (!call.permitted()) {
        return call.result(cudaErrorNotPermitted);
    }
    return call.result(live<CUgraph_st>().erase(graph) == 1 ? cudaSuccess : cudaErrorInvalidValue);
}
