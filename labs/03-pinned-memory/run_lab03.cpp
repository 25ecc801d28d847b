// lab03 program: copies between the GPU and pageable or pinned host memory,
// from 4 KiB up to 256 MiB, and reads each copy's bandwidth off the GPU's own
// timeline. Prints the sweep, writes it for `course plot`, and shows what
// pinning costs on the host.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "lab03.hpp"
#include "streamlab/bandwidth.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/lab_program.hpp"
#include "streamlab/tracer.hpp"

namespace {

using namespace streamlab;
using lab03::HostBuffer;

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr int kRepetitions = 3;  // the best of three copies counts

std::string size_text(std::size_t bytes) {
    return bytes >= kMiB ? std::to_string(bytes / kMiB) + " MiB" : std::to_string(bytes / 1024) + " KiB";
}

/// A bandwidth for a table cell, or "-" when nothing was measured.
std::string gbps_text(double gbps) {
    if (gbps <= 0.0) {
        return "-";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", gbps);
    return text;
}

/// The sweep file sits next to the trace: lab03-yours.json -> lab03-yours-bandwidth.json.
std::string sweep_path_for(const std::string& trace_path) {
    const std::filesystem::path trace(trace_path);
    return (trace.parent_path() / (trace.stem().string() + "-bandwidth.json")).string();
}

/// Milliseconds that `work` took on the host clock (for host-side costs only; copies are timed by the GPU).
template <typename Work>
double host_ms(Work&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void print_sweep(const std::vector<BandwidthPoint>& points, const std::vector<std::size_t>& sizes) {
    std::printf("\nbandwidth in GB/s (bytes / duration on the GPU's timeline, best of %d):\n", kRepetitions);
    std::printf("  %9s  %12s  %10s  %12s  %10s\n", "size", "H2D pageable", "H2D pinned", "D2H pageable", "D2H pinned");
    for (const std::size_t bytes : sizes) {
        const auto cell = [&](OpKind direction, HostMemory memory) {
            return gbps_text(bandwidth_gbps(points, bytes, direction, memory));
        };
        std::printf(
            "  %9s  %12s  %10s  %12s  %10s\n", size_text(bytes).c_str(),
            cell(OpKind::MemcpyH2D, HostMemory::Pageable).c_str(), cell(OpKind::MemcpyH2D, HostMemory::Pinned).c_str(),
            cell(OpKind::MemcpyD2H, HostMemory::Pageable).c_str(), cell(OpKind::MemcpyD2H, HostMemory::Pinned).c_str());
    }
}

/// One line per direction: pinned and pageable at `bytes`, and how much faster pinned was.
void print_summary(const std::vector<BandwidthPoint>& points, std::size_t bytes) {
    for (const OpKind direction : {OpKind::MemcpyH2D, OpKind::MemcpyD2H}) {
        const double pinned = bandwidth_gbps(points, bytes, direction, HostMemory::Pinned);
        const double pageable = bandwidth_gbps(points, bytes, direction, HostMemory::Pageable);
        std::printf("  %s at %s: pinned %s GB/s, pageable %s GB/s", op_base_name(direction), size_text(bytes).c_str(),
                    gbps_text(pinned).c_str(), gbps_text(pageable).c_str());
        if (pinned > 0 && pageable > 0) {
            std::printf(" (pinned %.1fx faster)", pinned / pageable);
        }
        std::printf("\n");
    }
}

int run(const LabOptions& options) {
    const DeviceFacts facts = query_device_facts(0);
    const std::size_t largest = largest_copy_bytes(256 * kMiB, facts.total_memory_bytes, available_host_memory_bytes());
    const std::vector<std::size_t> sizes = power_of_two_sizes(4096, largest);
    std::printf("%s: copies from 4 KiB to %s (the largest size leaves room on this device and host)\n",
                facts.name.c_str(), size_text(largest).c_str());
    DeviceBuffer<unsigned char> device(largest);

    // The sweep: every size, from pageable memory, then from cudaMallocHost memory.
    std::vector<DeviceOp> copies;
    std::string date;
    for (const HostBuffer kind : {HostBuffer::Pageable, HostBuffer::MallocHost}) {
        const Timeline sweep = record_timeline(std::string("lab03: bandwidth sweep, ") + lab03::to_string(kind),
                                               [&] { lab03::run_copies(kind, sizes, kRepetitions, device.data()); });
        copies.insert(copies.end(), sweep.ops.begin(), sweep.ops.end());
        date = sweep.date;
    }
    const std::vector<BandwidthPoint> points = best_bandwidths(copies);
    // Without the tracer (--no-trace) the copies ran but no bandwidth was measured.
    const bool traced = tracing_off_reason().empty();
    if (traced) {
        print_sweep(points, sizes);
        std::printf("\n");
        if (largest > 64 * kMiB) {
            print_summary(points, 64 * kMiB);
        }
        print_summary(points, largest);
    } else {
        std::printf("\nbandwidth sweep: the copies ran, but no bandwidth was measured (the tracer was off)\n");
    }
    if (!options.trace_path.empty() && !points.empty()) {
        const std::string path = sweep_path_for(options.trace_path);
        write_bandwidth_sweep(path, {"lab03: bandwidth sweep, pageable and pinned", date, facts, points});
        std::printf("  sweep written to %s\n  draw it: ./course plot %s -o build/plots/lab03-bandwidth.png\n",
                    path.c_str(), path.c_str());
    }

    // The picture: one copy each way at the largest size, pageable first, then pinned.
    const Timeline both = record_timeline("lab03: one copy each way, pageable then pinned", [&] {
        {
            OpLabel label("pageable");
            lab03::run_copies(HostBuffer::Pageable, {largest}, 1, device.data());
        }
        OpLabel label("pinned");
        lab03::run_copies(HostBuffer::MallocHost, {largest}, 1, device.data());
    });
    std::printf("\n");
    report_timeline(both, "one copy each way of " + size_text(largest) + ", pageable then pinned", options);

    // The other two ways to get pinned memory copy just as fast.
    std::printf("\nthe other ways to pin, at %s:\n", size_text(largest).c_str());
    for (const HostBuffer kind : {HostBuffer::HostAlloc, HostBuffer::Registered}) {
        const Timeline other = record_timeline(std::string("lab03: ") + lab03::to_string(kind), [&] {
            lab03::run_copies(kind, {largest}, kRepetitions, device.data());
        });
        const auto other_points = best_bandwidths(other.ops);
        std::printf("  %-16s:", lab03::to_string(kind));
        if (!other.recorded()) {
            std::printf("  copied, not measured (the tracer was off)");
        }
        for (const BandwidthPoint& point : other_points) {
            std::printf("  %s %s GB/s (%s)", op_base_name(point.direction), gbps_text(point.gbps).c_str(),
                        to_string(point.memory));
        }
        std::printf("\n");
    }

    // What pinning costs, like for like: each way gets the memory and writes every
    // byte once, as a program does before its first copy (pageable memory pays for
    // its pages at that first write, pinned memory when it is pinned), then gives
    // it back. common/examples/host_allocation_costs measures more carefully.
    std::printf("\nwhat %s of host memory costs (host clock): got and written once | given back\n",
                size_text(largest).c_str());
    const auto show_cost = [&](const char* way, const std::function<void*()>& get,
                               const std::function<void(void*)>& give_back) {
        void* memory = nullptr;
        const double get_ms = host_ms([&] {
            memory = get();
            if (memory != nullptr) {
                std::memset(memory, 1, largest);
            }
        });
        const double give_back_ms = host_ms([&] { give_back(memory); });
        std::printf("  %-38s %8.2f ms | %7.2f ms\n", way, get_ms, give_back_ms);
    };
    show_cost(
        "pageable (new[])", [&] { return static_cast<void*>(new unsigned char[largest]); },
        [](void* memory) { delete[] static_cast<unsigned char*>(memory); });
    show_cost(
        "cudaMallocHost / cudaFreeHost", [&] { return lab03::allocate_pinned(largest); },
        [](void* memory) { lab03::free_pinned(memory); });
    show_cost(
        "new[] + cudaHostRegister / Unregister",
        [&] {
            auto* memory = new unsigned char[largest];
            lab03::pin_in_place(memory, largest);
            return static_cast<void*>(memory);
        },
        [](void* memory) {
            lab03::unpin(memory);
            delete[] static_cast<unsigned char*>(memory);
        });

    // Both kinds of memory, both directions: otherwise a task is not done yet.
    for (const OpKind direction : {OpKind::MemcpyH2D, OpKind::MemcpyD2H}) {
        if (!traced) {
            break;  // nothing to tell from without a timeline
        }
        for (const HostMemory memory : {HostMemory::Pageable, HostMemory::Pinned}) {
            if (bandwidth_gbps(points, largest, direction, memory) <= 0) {
                std::printf("\nno %s copy of %s from %s memory was recorded: the sweep is incomplete\n",
                            op_base_name(direction), size_text(largest).c_str(), to_string(memory));
                return 1;
            }
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return run_lab_program(argc, argv, "Lab 03: pinned memory", run);
}
