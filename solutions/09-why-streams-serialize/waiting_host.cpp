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
    // Task 3: an event that marks the end of the stream's work so far. Made with
    // cudaEventBlockingSync, cudaEventSynchronize puts this thread to sleep until
    // the GPU reaches it, whatever the device's schedule flags (which are the whole
    // process's: setting them here would change every other wait). No timing: the
    // event is only waited for, and an event without timing costs less to record.
    const streamlab::Event done(cudaEventBlockingSync | cudaEventDisableTiming);
    done.record(stream);
    done.synchronize();
}

void wait_polling(cudaStream_t stream, const std::function<void()>& host_work) {
    // Task 3: cudaStreamQuery answers at once: cudaSuccess when every queued op
    // has finished, cudaErrorNotReady while some have not, and anything else is an
    // error (of the stream's work, or of the call). Ask before each slice, so that
    // no slice begins after the work is done.
    for (;;) {
        const cudaError_t status = cudaStreamQuery(stream);
        if (status == cudaSuccess) {
            return;
        }
        if (status != cudaErrorNotReady) {
            SL_CHECK(status);
        }
        host_work();
    }
}

}  // namespace lab09
