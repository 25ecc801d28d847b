/// @file runtime_graphs.hpp
/// @brief Stream capture as the rest of the runtime meets it (runtime_graphs.cpp holds the graphs).
///
/// While a stream is being captured (cudaStreamBeginCapture), the work issued to it is recorded as the nodes
/// of a graph instead of being run: Machine::enqueue hands the op to the capture (Machine::CaptureRecorder),
/// and an entry point that does CPU work hands that work over too (defer_to_capture), so that it is done at
/// each cudaGraphLaunch instead. Events carry the capture from stream to stream, as CUDA documents for
/// cross-stream capture: a stream that waits for an event recorded in a capture joins the capture
/// (capture_stream_wait).
#pragma once

#include <functional>
#include <string>

#include "machine.hpp"

namespace streamlab::simgpu {

/// The CPU side of an op: does its work (a copy, a kernel's CPU reference, a host function) and may adjust
/// the op (a host function's duration is how long it ran); returns "" or why the op faulted.
using OpWork = std::function<std::string(OpRequest& request)>;

/// Where `stream` is being captured: keeps `work` for the node that the stream's next enqueue records (it
/// runs at each launch of the graph, not now) and returns true. Otherwise returns false, and the caller does
/// the work now.
bool defer_to_capture(Stream& stream, OpWork work);

/// For Machine::wait_event, before anything else: where `event` was last recorded in a capture still open,
/// `stream` joins that capture (its later work becomes nodes after the record's point; the fork of
/// cross-stream capture) and true is returned, the caller doing nothing more. False otherwise. (An event
/// record or wait on a stream already captured reaches the capture as its marker, through Machine::enqueue.)
bool capture_stream_wait(Stream& stream, const Event& event);

}  // namespace streamlab::simgpu
