// lab01 program: runs your run_serial on 64 MiB and your barrier demo, checks
// the result, and prints (and writes) the timelines the GPU recorded.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "demo_buffers.hpp"
#include "lab01.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/tracer.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;

int run(const LabOptions& options) {
    // Task 1: H2D, kernel, D2H in the NULL stream.
    const std::size_t n = std::size_t{16} << 20;
    PinnedBuffer<float> input(n), output(n);
    fill_input(input.data(), n);
    fill_poison(output.data(), n);
    const int iterations = iterations_for_kernel_ms(n, measure_h2d_ms(input.bytes()));
    float reported_ms = 0.0F;
    const Timeline serial = record_timeline("lab01: run_serial, 64 MiB", [&] {
        reported_ms = lab01::run_serial(input.data(), output.data(), n, iterations);
    });
    const ResultCheck check = check_workload_output(input.data(), output.data(), n, iterations);
    std::printf("run_serial: your events say %.3f ms; result: %s\n", static_cast<double>(reported_ms),
                check.message().c_str());
    report_timeline(serial, "run_serial", options);

    // Task 2: the NULL stream's barrier, with blocking and with non-blocking streams.
    const lab01::DemoBuffers buffers(std::size_t{1} << 20);
    const lab01::DemoWork work = buffers.work(query_device_facts(0));
    struct Variant {
        unsigned int flags;
        const char* name;
    };
    for (const Variant variant :
         {Variant{cudaStreamDefault, "blocking"}, Variant{cudaStreamNonBlocking, "nonblocking"}}) {
        const Timeline demo = record_timeline(std::string("lab01: barrier demo, ") + variant.name + " streams",
                                              [&] { lab01::run_barrier_demo(variant.flags, work); });
        report_timeline(demo, std::string("barrier demo with ") + variant.name + " streams", options, variant.name);
    }
    return check.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    return run_lab_program(argc, argv, "Lab 01: the NULL stream", run);
}
