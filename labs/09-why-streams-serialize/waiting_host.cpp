// Lab 09, Task 3: the waiting host. Two ways for a host thread to wait for a
// stream: one that sleeps until the work is done, and one that keeps doing the
// host's own work and asks the stream, between two slices of it, whether it is
// done yet. As handed out, both wait the way cudaStreamSynchronize does by
// default on a machine with more cores than GPUs: by spinning, one core busy
// doing nothing for as long as the GPU works.
#include <functional>

#include "lab09.hpp"
#include "streamlab/check.hpp"
#include "streamlab/handles.hpp"

namespace lab09 {

void wait_blocking(cudaStream_t stream) {
    // TODO(lab09): Task 3. Wait for the stream's work with this thread asleep, whatever
    // the device's schedule flags say, and without changing them.
    SL_CHECK(cudaStreamSynchronize(stream));
    // TODO(lab09) end
}

void wait_polling(cudaStream_t stream, const std::function<void()>& host_work) {
    // TODO(lab09): Task 3. Do slices of host_work for as long as the stream has work left,
    // asking it between two slices without waiting; a CUDA error is thrown.
    (void)host_work;
    SL_CHECK(cudaStreamSynchronize(stream));
    // TODO(lab09) end
}

}  // namespace lab09
