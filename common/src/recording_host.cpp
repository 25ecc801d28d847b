// What a recording asks of the host, whichever recorder makes it (CUPTI's,
// activity_recorder.cpp, or the simulated GPU's, activity_recorder_sim.cpp):
// the date, the refusal of a second recording, the order of ops and marks, a
// kernel's readable name and the id of the calling thread.
#include <cxxabi.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <tuple>

#include "activity_recorder.hpp"
#include "streamlab/tracer.hpp"

namespace streamlab::detail {

std::string utc_now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32] = {};
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

void throw_already_recording() {
    throw std::logic_error(
        "streamlab: a timeline is already being recorded in this process; finish that Tracer before starting "
        "another");
}

void sort_ops(std::vector<DeviceOp>& ops) {
    std::sort(ops.begin(), ops.end(), [](const DeviceOp& a, const DeviceOp& b) {
        return std::tie(a.start_ns, a.end_ns, a.correlation_id) < std::tie(b.start_ns, b.end_ns, b.correlation_id);
    });
}

std::vector<HostMark> relative_marks(std::vector<HostMark> marks, std::uint64_t origin_ns) {
    for (HostMark& mark : marks) {
        mark.time_ns = mark.time_ns > origin_ns ? mark.time_ns - origin_ns : 0;
    }
    std::stable_sort(marks.begin(), marks.end(),
                     [](const HostMark& a, const HostMark& b) { return a.time_ns < b.time_ns; });
    return marks;
}

std::string demangle(const std::string& name) {
    int status = 0;
    char* readable = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status != 0 || readable == nullptr) {
        return name;  // extern "C" kernels are not mangled
    }
    std::string result(readable);
    std::free(readable);
    return result;
}

}  // namespace streamlab::detail

namespace streamlab {

// Here rather than in tracer.cpp: the injection library counts calls by thread
// too, and links the recorder without the Tracer.
std::uint64_t host_thread_id() noexcept {
    return static_cast<std::uint64_t>(::syscall(SYS_gettid));
}

}  // namespace streamlab
