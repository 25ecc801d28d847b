// Lab 07's consumer as Python reaches it, for the module (python_bindings.cpp).
//
// A host function is a C function pointer and one pointer of data, which Python
// code cannot make without ctypes (refused in student files). So the consumer
// hands out both: `deliver`, a C++ function of the course's, and `user_data(chunk)`,
// the chunk's delivery record, ready for
// cudart.cudaLaunchHostFunc(stream, consumer.host_function, consumer.user_data(c)).
// The host function then runs entirely in C++: no Python, so no interpreter lock
// for CUDA's thread to wait for.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "course_side.hpp"
#include "streamlab/pipeline.hpp"

namespace streamlab::python {

/// The course's consumer of a pipeline run over `memory` (which must outlive it), with
/// one delivery record per chunk for the host functions: they live as long as it does.
class HostConsumer {
public:
    HostConsumer(PipelineMemory& memory, int iterations, int chunks)
        : job_(job_over<lab07::PipelineJob>(memory, iterations)),
          consumer_(std::make_unique<lab07::course::ResultsConsumer>(job_, chunks)),
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

    /// The host function's address, as the integer cuda-bindings takes.
    static std::uintptr_t host_function() { return reinterpret_cast<std::uintptr_t>(&deliver); }

    void consume(int chunk) const { consume_.consume(chunk); }

    /// The address of chunk's delivery record: cudaLaunchHostFunc's userData for that chunk.
    std::uintptr_t user_data(int chunk) const {
        if (chunk < 0 || chunk >= static_cast<int>(deliveries_.size())) {
            throw std::out_of_range("user_data(" + std::to_string(chunk) + "): the job has " +
                                    std::to_string(deliveries_.size()) + " chunks");
        }
        return reinterpret_cast<std::uintptr_t>(&deliveries_[static_cast<std::size_t>(chunk)]);
    }

    /// The address of what consume took out of the job's output (`n` floats, pageable): the run's output.
    std::uintptr_t consumed() const { return reinterpret_cast<std::uintptr_t>(consumer_->consumed.data()); }

    void reset() { consumer_->reset(); }
    std::vector<lab07::course::Consumption> consumptions(std::uint64_t origin_ns) const {
        return consumer_->consumptions(origin_ns);
    }

private:
    struct Delivery {
        const HostConsumer* consumer;
        int chunk;
    };
    lab07::PipelineJob job_;
    std::unique_ptr<lab07::course::ResultsConsumer> consumer_;
    lab07::Consumer consume_;
    std::vector<Delivery> deliveries_;  // never resized after construction: the addresses stay valid
};

}  // namespace streamlab::python
