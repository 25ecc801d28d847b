// Device ops for the CPU tests, built a field at a time:
//   OpBuilder(OpKind::Kernel).stream(3).span(0, 10).label("a")
// Every field not given keeps DeviceOp's default.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "streamlab/timeline.hpp"

namespace streamlab::testing_ops {

class OpBuilder {
public:
    explicit OpBuilder(OpKind kind) { op_.kind = kind; }

    OpBuilder& name(std::string name) {
        op_.name = std::move(name);
        return *this;
    }
    OpBuilder& label(std::string label) {
        op_.label = std::move(label);
        return *this;
    }
    OpBuilder& stream(std::uint32_t id, StreamKind kind = StreamKind::Created) {
        op_.stream_id = id;
        op_.stream_kind = kind;
        return *this;
    }
    /// Start and end on the device clock, in ns.
    OpBuilder& span(std::uint64_t start_ns, std::uint64_t end_ns) {
        op_.start_ns = start_ns;
        op_.end_ns = end_ns;
        return *this;
    }
    OpBuilder& bytes(std::uint64_t bytes) {
        op_.bytes = bytes;
        return *this;
    }
    OpBuilder& host(HostMemory memory) {
        op_.host_memory = memory;
        return *this;
    }
    /// The GPU that ran it (DeviceOp::device_id).
    OpBuilder& device(std::uint32_t id) {
        op_.device_id = id;
        return *this;
    }
    /// A copy from GPU `source` to GPU `destination` (MemcpyP2P).
    OpBuilder& peer(std::uint32_t source, std::uint32_t destination) {
        op_.source_device = source;
        op_.destination_device = destination;
        return *this;
    }
    OpBuilder& correlation(std::uint32_t id) {
        op_.correlation_id = id;
        return *this;
    }

    operator DeviceOp() const { return op_; }  // NOLINT(google-explicit-constructor): the builder's point

private:
    DeviceOp op_;
};

}  // namespace streamlab::testing_ops
