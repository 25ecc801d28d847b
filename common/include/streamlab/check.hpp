/// @file check.hpp
/// @brief Turning a failed CUDA call into an exception that says what failed and where.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

/// The course library: error checks, RAII handles, device facts, the workload kernel,
/// the timeline tracer, trace files, trace analysis and the pipeline model.
namespace streamlab {

/// A CUDA call failed. The message reads
/// `file:line: cudaMalloc(&p, n) failed: cudaErrorMemoryAllocation (out of memory)`.
class CudaError : public std::runtime_error {
public:
    /// Builds the error for `code`, returned by `expression` at `file`:`line`.
    CudaError(cudaError_t code, std::string expression, std::string file, int line);

    /// The CUDA error code.
    [[nodiscard]] cudaError_t code() const noexcept { return code_; }
    /// CUDA's name for the code, e.g. "cudaErrorInvalidValue".
    [[nodiscard]] const std::string& error_name() const noexcept { return name_; }
    /// CUDA's description of the code, e.g. "invalid argument".
    [[nodiscard]] const std::string& error_string() const noexcept { return description_; }
    /// The call that failed, as written in the source.
    [[nodiscard]] const std::string& expression() const noexcept { return expression_; }
    /// Source file of the call.
    [[nodiscard]] const std::string& file() const noexcept { return file_; }
    /// Source line of the call.
    [[nodiscard]] int line() const noexcept { return line_; }

private:
    cudaError_t code_;
    std::string name_;
    std::string description_;
    std::string expression_;
    std::string file_;
    int line_;
};

/// Implementation helpers of the public API: call them through its macros and classes.
namespace detail {
/// Throws CudaError when `code` is not cudaSuccess. Use through SL_CHECK.
void throw_on_error(cudaError_t code, const char* expression, const char* file, int line);
/// Reports a failure without throwing (for destructors). Use through SL_CHECK_NOEXCEPT.
void report_on_error(cudaError_t code, const char* expression, const char* file, int line) noexcept;
}  // namespace detail

}  // namespace streamlab

/// Runs a CUDA runtime call and throws streamlab::CudaError if it fails.
#define SL_CHECK(expression) ::streamlab::detail::throw_on_error((expression), #expression, __FILE__, __LINE__)

/// Checks that the last kernel launch was accepted (bad configuration, no device...).
/// Launches return nothing, so this is the only way to see a launch error at once.
#define SL_CHECK_LAUNCH() SL_CHECK(cudaGetLastError())

/// For destructors, which must not throw: prints the failure to stderr and goes on.
#define SL_CHECK_NOEXCEPT(expression) \
    ::streamlab::detail::report_on_error((expression), #expression, __FILE__, __LINE__)
