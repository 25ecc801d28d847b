#include "streamlab/check.hpp"

#include <cstdio>
#include <stdexcept>

#include "streamlab/handles.hpp"

namespace streamlab {
namespace {
std::string describe(cudaError_t code, const std::string& expression, const std::string& file, int line) {
    return file + ":" + std::to_string(line) + ": " + expression + " failed: " + cudaGetErrorName(code) + " (" +
           cudaGetErrorString(code) + ")";
}
}  // namespace

CudaError::CudaError(cudaError_t code, std::string expression, std::string file, int line)
    : std::runtime_error(describe(code, expression, file, line)),
      code_(code),
      name_(cudaGetErrorName(code)),
      description_(cudaGetErrorString(code)),
      expression_(std::move(expression)),
      file_(std::move(file)),
      line_(line) {}

namespace detail {
void throw_on_error(cudaError_t code, const char* expression, const char* file, int line) {
    if (code != cudaSuccess) {
        throw CudaError(code, expression, file, line);
    }
}

void report_on_error(cudaError_t code, const char* expression, const char* file, int line) noexcept {
    if (code != cudaSuccess) {
        std::fprintf(stderr, "streamlab: %s:%d: %s failed: %s (%s)\n", file, line, expression, cudaGetErrorName(code),
                     cudaGetErrorString(code));
    }
}

void throw_empty_stream() {
    throw std::logic_error(
        "streamlab::Stream::get() on an empty Stream (default-constructed, moved from or reset): "
        "CUDA would read its null handle as the NULL stream");
}
}  // namespace detail
}  // namespace streamlab
