// The tracer's warm-up kernel (see Tracer::Tracer).
#include "activity_recorder.hpp"
#include "streamlab/check.hpp"

namespace streamlab::detail {
namespace {
__global__ void tracer_warm_up_kernel() {}
}  // namespace

void warm_up_recording() {
    // Its own non-blocking stream: waiting for it waits for nothing else.
    cudaStream_t stream = nullptr;
    SL_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    tracer_warm_up_kernel<<<1, 1, 0, stream>>>();
    const cudaError_t launched = cudaGetLastError();
    const cudaError_t finished = cudaStreamSynchronize(stream);
    SL_CHECK_NOEXCEPT(cudaStreamDestroy(stream));
    SL_CHECK(launched);
    SL_CHECK(finished);
}

}  // namespace streamlab::detail
