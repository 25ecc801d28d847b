"""Lab 09's catalogue samples (see CATALOGUE in make_grading_samples.py): the lab 09 solution with
one design changed, a known-wrong one each test must catch or a correct alternative no test may refuse.
Standard library only."""

from __future__ import annotations

from .rewriting import replace_once, rewrite_function

LAB09 = "labs/09-why-streams-serialize/serialize.cu"
LAB09_MALLOC_ASYNC = (
    "        SL_CHECK(cudaMallocAsync(&device_in[i], bytes, stream));\n"
    "        SL_CHECK(cudaMallocAsync(&device_out[i], bytes, stream));\n"
)
LAB09_FREE_ASYNC = (
    "    for (int i = 0; i < chunks; ++i) {\n"
    "        SL_CHECK(cudaFreeAsync(device_in[i], streams[i].get()));\n"
    "        SL_CHECK(cudaFreeAsync(device_out[i], streams[i].get()));\n"
    "    }\n"
)
LAB09_STAGING_DECLARED = (
    "    float* staging = nullptr;\n    SL_CHECK(cudaMallocHost(&staging, job.n * sizeof(float)));\n"
)
LAB09_STAGING_SLICE = "        staged[i] = staging + chunk.offset;\n"
LAB09_STAGING_FREED = "    SL_CHECK(cudaFreeHost(staging));\n"
LAB09_SLICES_FREED = "    for (float* slice : staged) {\n        SL_CHECK(cudaFreeHost(slice));\n    }\n"


def catalogue_lab09_memset_in_null_stream(files: dict[str, str]) -> None:
    """Known wrong: the lab 09 solution with each chunk's memset made by cudaMemset, in the legacy NULL stream."""
    replace_once(
        files,
        LAB09,
        "cudaMemsetAsync(device_out[i], 0, bytes, stream)",
        "cudaMemset(device_out[i], 0, bytes)",
    )


def catalogue_lab09_pinned_in_the_loop(files: dict[str, str]) -> None:
    """Known wrong: the lab 09 solution with each chunk's pinned staging allocated in the chunk loop."""
    replace_once(files, LAB09, LAB09_STAGING_DECLARED, "")
    replace_once(files, LAB09, LAB09_STAGING_SLICE, "        SL_CHECK(cudaMallocHost(&staged[i], bytes));\n")
    replace_once(files, LAB09, LAB09_STAGING_FREED, LAB09_SLICES_FREED)


def catalogue_lab09_allocate_before_the_loop(files: dict[str, str]) -> None:
    """Correct: every allocation of lab 09's pipeline made before the first chunk's work (cudaMalloc for
    the whole job's device memory, cudaMallocHost for each chunk's staging) and released after the last
    chunk's end: the calls that may serialize streams are made while nothing runs."""
    replace_once(files, LAB09, LAB09_STAGING_DECLARED, "")
    replace_once(
        files,
        LAB09,
        "    for (int i = 0; i < chunks; ++i) {\n        const streamlab::OpLabel",
        "    float* whole_in = nullptr;\n"
        "    float* whole_out = nullptr;\n"
        "    SL_CHECK(cudaMalloc(&whole_in, job.n * sizeof(float)));\n"
        "    SL_CHECK(cudaMalloc(&whole_out, job.n * sizeof(float)));\n"
        "    for (int i = 0; i < chunks; ++i) {\n"
        "        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, i);\n"
        "        device_in[i] = whole_in + chunk.offset;\n"
        "        device_out[i] = whole_out + chunk.offset;\n"
        "        SL_CHECK(cudaMallocHost(&staged[i], chunk.count * sizeof(float)));\n"
        "    }\n"
        "    for (int i = 0; i < chunks; ++i) {\n        const streamlab::OpLabel",
    )
    replace_once(files, LAB09, LAB09_MALLOC_ASYNC, "")
    replace_once(files, LAB09, LAB09_STAGING_SLICE, "")
    replace_once(files, LAB09, LAB09_FREE_ASYNC, "")
    replace_once(
        files,
        LAB09,
        LAB09_STAGING_FREED,
        LAB09_SLICES_FREED + "    SL_CHECK(cudaFree(whole_in));\n    SL_CHECK(cudaFree(whole_out));\n",
    )


LAB09_WAITS = "labs/09-why-streams-serialize/waiting_host.cpp"


def catalogue_lab09_polls_an_event(files: dict[str, str]) -> None:
    """Correct: wait_polling records an event after the stream's work and asks the event
    (cudaEventQuery) between two slices instead of the stream."""
    rewrite_function(
        files,
        LAB09_WAITS,
        "void wait_polling(cudaStream_t stream, const std::function<void()>& host_work) {",
        "void wait_polling(cudaStream_t stream, const std::function<void()>& host_work) {\n"
        "    const streamlab::Event done(cudaEventDisableTiming);\n"
        "    done.record(stream);\n"
        "    for (cudaError_t status = cudaEventQuery(done.get()); status != cudaSuccess;\n"
        "         status = cudaEventQuery(done.get())) {\n"
        "        if (status != cudaErrorNotReady) {\n"
        "            SL_CHECK(status);\n"
        "        }\n"
        "        host_work();\n"
        "    }\n"
        "}\n",
    )


LAB09_LATE_ERROR = "labs/09-why-streams-serialize/late_error.cu"


def catalogue_lab09_waits_per_chunk(files: dict[str, str]) -> None:
    """Known wrong: waits for each chunk's stream right after queuing it, so that its kernel's error shows in
    its chunk. Every report is right, with or without launch blocking, and no chunk overlaps another."""
    replace_once(
        files,
        LAB09_LATE_ERROR,
        "        if (error != cudaSuccess) {\n            report = {i, error};\n",
        "        if (error == cudaSuccess) {\n"
        "            error = cudaStreamSynchronize(stream);  // the chunk's error, in its chunk\n"
        "        }\n"
        "        if (error != cudaSuccess) {\n            report = {i, error};\n",
    )


LAB09_CHOICE = "labs/09-why-streams-serialize/choice.txt"
LAB09_CHOSEN = "wait: polling\n# cpu: polling's CPU/wall on the H200, 2026-12-03: the core is busy, with the host's work.\ncpu: 1.00\n"


def catalogue_lab09_chooses_spin(files: dict[str, str]) -> None:
    """Known wrong: Task 3's choice is `spin`, with its CPU share quoted right: the waiting thread keeps a
    core busy for the whole wait and does none of the host's work."""
    replace_once(files, LAB09_CHOICE, LAB09_CHOSEN, "wait: spin\ncpu: 1.00\n")


def catalogue_lab09_chooses_blocking_sync(files: dict[str, str]) -> None:
    """Correct: Task 3's choice is `blocking-sync`, the schedule flag that puts every wait of the process to
    sleep: a host whose work runs on other threads gets the core back (the grader sets the flag itself)."""
    replace_once(files, LAB09_CHOICE, LAB09_CHOSEN, "wait: blocking-sync\ncpu: 0.00\n")
