/// @file scheduler.hpp
/// @brief When each op of the simulated GPU starts and ends: a discrete-event simulation of the GPU's
/// engines (the copy engines and the SMs), fed by the machine (machine.hpp) with ops and what they wait for.
///
/// The rule it follows is the hardware's, as NVIDIA's Programming Guide describes streams: an op may start
/// once every op it depends on has ended (the stream's order, events, barriers) and its engine is free;
/// among the ops that may start at one moment, a stream of higher priority goes first (a lower number), and
/// then the op issued first. An op that has started is never interrupted (priorities pick among pending
/// work; they do not preempt).
///
/// A kernel is not one piece of work but a grid of thread blocks, which the GPU hands to its SMs as room
/// frees (Programming Guide, "Hardware Implementation": "as thread blocks terminate, new blocks are launched
/// on the vacated multiprocessors"). So a kernel starts as soon as any room is free, with as many of its
/// blocks as fit, and the rest follow as blocks of any kernel end. The simulation counts blocks in waves: a
/// grid that the SMs hold at once is one wave; a larger one runs in OpRequest::waves waves, each lasting its
/// share of the kernel's duration. Room that frees goes to the pending blocks of the highest priority stream
/// first, then to the kernel issued first: a kernel of a higher priority stream gets in when the running
/// blocks of a lower one end (the next wave), without preempting them.
///
/// The simulation only ever advances to the host's current time: an op the host has not issued yet cannot
/// start before the host issues it (plus the launch latency), so nothing the host does later can change a
/// decision already taken.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "streamlab/simgpu.hpp"
#include "streamlab/timeline.hpp"

namespace streamlab::simgpu {

struct Event;

/// An op's index in the list of every op the machine ran (1-based; 0 means "none").
using OpId = std::uint64_t;

/// What an op occupies while it runs.
enum class Resource {
    /// Nothing shared: markers, memsets (the model lets them run beside anything; they are short).
    None,
    /// The runtime's own thread for host functions: it runs them one at a time (the Runtime API on
    /// cudaLaunchHostFunc: host functions of independent streams may be serialized).
    HostFunctionThread,
    CopyEngineH2D,  ///< The copy engine that carries host-to-device copies.
    CopyEngineD2H,  ///< The one that carries device-to-host copies (the same one where the GPU has one).
    CopyEngineAny,  ///< Whichever copy engine is free (device-to-device copies).
    Compute,        ///< A share of the SMs (OpRequest::compute_share), wave after wave: kernels.
};

/// Why a marker (an op the GPU runs nothing for) was issued.
enum class Marker {
    None,          ///< Not a marker: work the log shows.
    EventRecord,   ///< cudaEventRecord: OpRequest::event is the event.
    EventWait,     ///< cudaStreamWaitEvent: OpRequest::event is the event.
    HostFunction,  ///< cudaLaunchHostFunc: the function ran on the runtime's thread for duration_ns.
    Join,          ///< Joins several ops into one (a barrier, a graph launch's end).
};

/// An op a runtime call asks the machine to run on a stream.
struct OpRequest {
    /// Markers order work but the GPU runs nothing for them, so neither CUPTI nor the log shows them.
    Marker marker = Marker::None;
    const Event* event = nullptr;                        ///< For EventRecord and EventWait markers.
    OpKind kind = OpKind::Kernel;                        ///< Shown as DeviceOp::kind.
    std::string name;                                    ///< Demangled kernel name, or "H2D", "D2H", "memset"...
    std::uint64_t bytes = 0;                             ///< Bytes copied or set.
    HostMemory host_memory = HostMemory::NotApplicable;  ///< For copies: the host side's kind.
    std::uint64_t duration_ns = 0;                       ///< How long it runs once started (from the model).
    Resource resource = Resource::None;                  ///< What it occupies while it runs.
    double compute_share = 1.0;                          ///< For Resource::Compute: the share of the SMs.
    std::uint32_t graph_id = 0;                          ///< The graph launch that runs it, or 0.
    std::uint64_t graph_node_id = 0;                     ///< Its graph node, or 0.
    /// For Resource::Compute: how many waves of blocks the grid runs in on an idle GPU, each holding
    /// compute_share of the SMs for duration_ns / waves (1: the SMs hold the whole grid at once).
    std::uint32_t waves = 1;
    /// Work done the moment the op starts, on the simulated clock at `start_ns` (a host function: the
    /// runtime calls it when its stream reaches it, not when it is issued); returns how long it ran, in ns,
    /// which becomes the op's duration. Empty for ops whose work was done when they were issued.
    std::function<std::uint64_t(std::uint64_t start_ns)> run_at_start;
    /// Ops it waits for besides the stream's own order (graph edges, a join's branches).
    std::vector<OpId> extra_dependencies;
    /// Whether it waits for the stream's work so far (false for a graph's inner nodes, which wait for the
    /// graph's start marker through extra_dependencies instead).
    bool follows_stream = true;
    /// Whether the stream's later work waits for it (false for a graph's inner nodes: the graph's join
    /// marker becomes the tail).
    bool becomes_tail = true;

    /// Whether the log shows it.
    [[nodiscard]] bool visible() const { return marker == Marker::None; }
};

/// One op as the machine keeps it: what the log shows and what the scheduler needs.
struct Op {
    DeviceOp shown;                       ///< start_ns and end_ns are on the host clock once it has started.
    OpRequest request;                    ///< What was asked (engine, duration, whether it is shown).
    std::vector<OpId> dependencies;       ///< Every op that must end before it starts.
    std::uint64_t earliest_start_ns = 0;  ///< No sooner than its call returned plus the launch latency.
    int priority = 0;                     ///< Its stream's priority when issued (lower goes first).
    bool started = false;
    bool ended = false;  ///< Ended at or before the time the simulation reached.
    int engine = -1;     ///< The copy engine it runs on, where it runs on one.
    /// For kernels: the blocks not yet handed to the SMs, in shares of the GPU times waves (a grid of two
    /// waves of the whole GPU starts at 2), and the share of the SMs its running blocks hold. Its end_ns is
    /// the end of its last blocks handed out so far; it has ended when nothing is left and nothing is held.
    double blocks_left = 0.0;
    double share_held = 0.0;
};

/// Blocks of one kernel handed to the SMs at one moment: they hold `share` of the SMs until `end_ns`.
struct BlocksRunning {
    OpId op = 0;
    double share = 0.0;
    std::uint64_t end_ns = 0;
};

/// The discrete-event simulation of the GPU's engines.
class Scheduler {
public:
    /// A GPU with `copy_engines` copy engines (at least one) and one set of SMs.
    explicit Scheduler(int copy_engines);

    /// Adds an op (its dependencies must be ops added before it); returns its id.
    OpId add(Op op);
    [[nodiscard]] const Op& op(OpId id) const { return ops_.at(id - 1); }
    [[nodiscard]] const std::vector<Op>& ops() const { return ops_; }

    /// Takes every decision up to `time_ns`: what starts and ends at or before it.
    void advance_to(std::uint64_t time_ns);
    /// Runs the simulation until `id` has ended (no op may be added meanwhile: the host is waiting); returns
    /// its end.
    std::uint64_t run_until_ended(OpId id);
    /// Runs it until every op has ended; returns when the last one ended (or the time reached, if later).
    std::uint64_t run_until_idle();
    /// The ops that have not ended at the time reached.
    [[nodiscard]] std::vector<OpId> unfinished() const;
    /// The time the simulation has reached.
    [[nodiscard]] std::uint64_t now_ns() const { return now_ns_; }

    /// Forgets every op.
    void clear();

private:
    [[nodiscard]] bool dependencies_ended(const Op& op) const;
    /// When `op`, whose dependencies have ended, may start at the earliest.
    [[nodiscard]] std::uint64_t ready_time(const Op& op) const;
    /// The next moment after now at which something ends or becomes ready; false where nothing will.
    [[nodiscard]] bool next_event_time(std::uint64_t& time_ns) const;
    /// Ends what ends at now and starts what can start at now, until nothing changes.
    void process_now();
    /// Starts `op` at now where its engine is free; false where it is not.
    bool try_start(Op& op);
    /// Hands as many of kernel `id`'s pending blocks to the SMs as the free room takes; false where none.
    bool dispatch_blocks(OpId id);
    /// Ends the ops and blocks that end at now and frees what they held; true where any did.
    bool end_what_ends_now();
    void release(const Op& op);

    std::vector<Op> ops_;
    std::vector<OpId> waiting_;                  ///< Not started, in the order they were added.
    std::vector<OpId> running_;                  ///< Started, not ended.
    std::vector<BlocksRunning> blocks_running_;  ///< Kernels' blocks on the SMs.
    bool host_function_thread_busy_ = false;
    std::vector<bool> copy_engine_busy_;
    double compute_in_use_ = 0.0;  ///< The share of the SMs the running kernels hold.
    std::uint64_t now_ns_ = 0;
};

}  // namespace streamlab::simgpu
