#include "streamlab/lab_program.hpp"

#include <cstdio>
#include <exception>

#include "activity_recorder.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/device.hpp"
#include "streamlab/grader_words.hpp"
#include "streamlab/trace_file.hpp"
#include "streamlab/tracer.hpp"
#include "tracing_switch.hpp"

namespace streamlab {
namespace {

void print_usage(const char* program, const std::string& description) {
    std::printf(
        "%s\n\nusage: %s [--trace PATH | --no-trace]\n"
        "  --trace PATH  write the recorded timeline (Chrome trace JSON)\n"
        "  --no-trace    run without the tracer, so that compute-sanitizer can watch the program\n"
        "                (CUPTI allows one tool at a time): no timeline is recorded\n",
        description.c_str(), program);
}

std::string with_variant(const std::string& path, const std::string& variant) {
    if (variant.empty()) {
        return path;
    }
    const auto dot = path.rfind('.');
    const auto slash = path.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
        return path + "-" + variant;
    }
    return path.substr(0, dot) + "-" + variant + path.substr(dot);
}

}  // namespace

int run_lab_program(int argc, char** argv, const std::string& description,
                    const std::function<int(const LabOptions&)>& body) {
    LabOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            print_usage(argv[0], description);
            return 0;
        }
        if (arg == "--trace" && i + 1 < argc) {
            options.trace_path = argv[++i];
        } else if (arg == "--no-trace") {
            options.no_trace = true;
        } else {
            std::fprintf(stderr, "%s: unknown or incomplete option '%s' (try --help)\n", argv[0], arg.c_str());
            return 2;
        }
    }
    if (options.no_trace && !options.trace_path.empty()) {
        std::fprintf(stderr, "%s: --trace and --no-trace exclude each other (try --help)\n", argv[0]);
        return 2;
    }
    if (options.no_trace) {
        detail::turn_tracing_off("--no-trace");  // before anything could attach CUPTI
    }
    return run_with_gpu(argv[0], [&] { return body(options); });
}

int run_with_gpu(const char* program, const std::function<int()>& body) {
    const GpuPresence presence = query_gpu_presence();
    if (!presence.available) {
        std::fprintf(stderr, "%s: %s%s\n", program, words::kSkipNoGpu, presence.reason.c_str());
        return 1;
    }
    if (const std::string off = tracing_off_reason(); !off.empty()) {
        std::printf("no timeline will be recorded: %s\n", off.c_str());
    }
    try {
        return body();
    } catch (const std::exception& error) {
        std::fprintf(stderr, "%s: %s\n", program, error.what());
        return 1;
    }
}

void report_timeline(const Timeline& timeline, const std::string& title, const LabOptions& options,
                     const std::string& variant) {
    if (!timeline.recorded()) {
        std::printf("%s: no timeline recorded (the tracer was off)\n", title.c_str());
        return;
    }
    const TimelineSummary s = summarize(timeline.ops);
    std::printf("%s (timeline recorded by %s on %s):\n", title.c_str(), detail::recorder_name(),
                timeline.device.name.c_str());
    std::printf("  %zu ops in %zu stream(s), %zu in the NULL stream; makespan %.3f ms\n", s.op_count,
                s.distinct_streams, s.null_stream_ops, ms(s.makespan_ns));
    std::printf("  busy: H2D %.3f ms, compute %.3f ms, D2H %.3f ms\n", ms(s.busy_h2d_ns), ms(s.busy_compute_ns),
                ms(s.busy_d2h_ns));
    std::printf(
        "  overlap: copy with compute %.3f ms (%.0f%% of copy time hidden), H2D with D2H %.3f ms, "
        "kernel with kernel %.3f ms\n",
        ms(s.copy_compute_overlap_ns), 100.0 * s.hidden_copy_fraction, ms(s.h2d_d2h_overlap_ns),
        ms(s.kernel_overlap_ns));
    if (!options.trace_path.empty()) {
        const std::string path = with_variant(options.trace_path, variant);
        write_trace(path, timeline);
        std::printf("  trace written to %s\n", path.c_str());
    }
}

}  // namespace streamlab
