"""The teaching catalogue of the C++ track:

    python3 -m selfgrading.make_grading_samples --catalogue /tmp/cat

Samples that check the tests grade the concept. A known-wrong sample (`wrong-labNN-...`) breaks one
requirement and must fail exactly the tests catalogue-expected.json names for its lab, and no other; a
correct alternative (`right-labNN-...`) solves a lab another right way and must score full points.
selfgrading/selfgrade.py grades each sample's lab and compares. Each sample is the solutions with one
file of one lab changed. Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from .sample_files import fresh_folder, replace_once, rewrite_function, student_files, write_folder

Edit = Callable[[dict[str, str]], None]


class Sample(NamedTuple):
    """A catalogue sample: the solutions changed by `make`, graded on `lab`, where it must fail exactly
    `fails` (none: a correct alternative)."""

    make: Edit
    lab: str
    fails: list[str]


def replacing(path: str, *changes: tuple[str, str]) -> Edit:
    """The change that replaces each `old` of `changes` by its `new` in files[path], once, in order."""

    def edit(files: dict[str, str]) -> None:
        for old, new in changes:
            replace_once(files, path, old, new)

    return edit


def rewriting(path: str, signature: str, new_function: str) -> Edit:
    """The change that rewrites the function of files[path] that starts with `signature`."""
    return lambda files: rewrite_function(files, path, signature, new_function)


LAB01 = "labs/01-null-stream/null_stream.cu"
LAB01_PREDICTION = "labs/01-null-stream/prediction.txt"
LAB02_PREDICTION = "labs/02-streams/prediction.txt"
LAB04 = "labs/04-async-copies/async_copies.cu"
LAB04_PREDICTION = "labs/04-async-copies/prediction.txt"
LAB05 = "labs/05-three-chunks/three_chunks.cu"
LAB05_PREDICTION = "labs/05-three-chunks/prediction.txt"
LAB06 = "labs/06-many-chunks/many_chunks.cu"
LAB07 = "labs/07-dependencies-and-graphs/dependencies.cu"
LAB08 = "labs/08-two-gpus/two_gpus.cu"
LAB09 = "labs/09-why-streams-serialize/serialize.cu"
LAB09_WAITS = "labs/09-why-streams-serialize/waiting_host.cpp"
LAB09_LATE_ERROR = "labs/09-why-streams-serialize/late_error.cu"
LAB09_CHOICE = "labs/09-why-streams-serialize/choice.txt"

RUN_PIPELINE = "float run_pipeline(const PipelineJob& job, int chunks) {\n"
RUN_PIPELINE_STREAM_PER_STAGE = """float run_pipeline(const PipelineJob& job, int chunks) {
    // One stream per stage, not per chunk: copies in, kernels, copies out. Events
    // carry each chunk from one stage's stream to the next.
    streamlab::Stream copies_in(cudaStreamNonBlocking), kernels(cudaStreamNonBlocking),
        copies_out(cudaStreamNonBlocking);
    std::vector<streamlab::Event> copied_in, computed;
    for (int i = 0; i < chunks; ++i) {
        copied_in.emplace_back(cudaEventDisableTiming);
        computed.emplace_back(cudaEventDisableTiming);
    }
    streamlab::Event start(cudaEventDefault), stop(cudaEventDefault);
    start.record(copies_in.get());
    SL_CHECK(cudaStreamWaitEvent(kernels.get(), start.get(), 0));
    SL_CHECK(cudaStreamWaitEvent(copies_out.get(), start.get(), 0));
    for (int i = 0; i < chunks; ++i) {
        const streamlab::ChunkRange chunk = streamlab::chunk_range(job.n, chunks, i);
        const std::size_t bytes = chunk.count * sizeof(float);
        SL_CHECK(cudaMemcpyAsync(job.device_input + chunk.offset, job.input + chunk.offset, bytes,
                                 cudaMemcpyHostToDevice, copies_in.get()));
        copied_in[i].record(copies_in.get());
        SL_CHECK(cudaStreamWaitEvent(kernels.get(), copied_in[i].get(), 0));
        streamlab::launch_workload(job.device_input + chunk.offset, job.device_output + chunk.offset, chunk.count,
                                   job.iterations, kernels.get());
        computed[i].record(kernels.get());
        SL_CHECK(cudaStreamWaitEvent(copies_out.get(), computed[i].get(), 0));
        SL_CHECK(cudaMemcpyAsync(job.output + chunk.offset, job.device_output + chunk.offset, bytes,
                                 cudaMemcpyDeviceToHost, copies_out.get()));
    }
    stop.record(copies_out.get());  // the last stage's stream ends after every chunk's copy back
    stop.synchronize();
    return streamlab::elapsed_ms(start, stop);
}

"""

RUN_PIPELINE_STAGE_BY_STAGE = """float run_pipeline(const PipelineJob& job, int chunks) {
    // One stream per chunk, issued stage by stage: every copy in, then every
    // kernel, then every copy out. Each stream waits for `start` (the fork) and
    // `stop` waits for every stream (the join).
    std::vector<streamlab::Stream> streams;
    for (int i = 0; i < chunks; ++i) {
        streams.emplace_back(cudaStreamNonBlocking);
    }
    streamlab::Event start(cudaEventDefault), stop(cudaEventDefault), done(cudaEventDisableTiming);
    start.record(streams[0].get());
    for (int i = 1; i < chunks; ++i) {
        SL_CHECK(cudaStreamWaitEvent(streams[i].get(), start.get(), 0));
    }
    const auto range = [&](int i) { return streamlab::chunk_range(job.n, chunks, i); };
    for (int i = 0; i < chunks; ++i) {
        SL_CHECK(cudaMemcpyAsync(job.device_input + range(i).offset, job.input + range(i).offset,
                                 range(i).count * sizeof(float), cudaMemcpyHostToDevice, streams[i].get()));
    }
    for (int i = 0; i < chunks; ++i) {
        streamlab::launch_workload(job.device_input + range(i).offset, job.device_output + range(i).offset,
                                   range(i).count, job.iterations, streams[i].get());
    }
    for (int i = 0; i < chunks; ++i) {
        SL_CHECK(cudaMemcpyAsync(job.output + range(i).offset, job.device_output + range(i).offset,
                                 range(i).count * sizeof(float), cudaMemcpyDeviceToHost, streams[i].get()));
    }
    for (int i = 1; i < chunks; ++i) {
        done.record(streams[i].get());
        SL_CHECK(cudaStreamWaitEvent(streams[0].get(), done.get(), 0));
    }
    stop.record(streams[0].get());
    stop.synchronize();
    return streamlab::elapsed_ms(start, stop);
}

"""

HOST_CLOCK_RUN_SERIAL = """float run_serial(const float* input, float* output, std::size_t n, int iterations) {
    // Timed with the host's clock, not with CUDA events.
    const std::size_t bytes = n * sizeof(float);
    streamlab::DeviceBuffer<float> d_input(n);
    streamlab::DeviceBuffer<float> d_output(n);
    const auto began = std::chrono::steady_clock::now();
    SL_CHECK(cudaMemcpy(d_input.data(), input, bytes, cudaMemcpyHostToDevice));
    streamlab::launch_workload(d_input.data(), d_output.data(), n, iterations, /*stream=*/nullptr);
    SL_CHECK(cudaMemcpy(output, d_output.data(), bytes, cudaMemcpyDeviceToHost));
    const std::chrono::duration<float, std::milli> took = std::chrono::steady_clock::now() - began;
    return took.count();
}

"""

ONE_MALLOC_ASYNC = """    SL_CHECK(cudaMallocAsync(&d_input, 2 * bytes, stream));  // one allocation for both buffers
    d_output = d_input + n;
"""
LAB06_STAGING_WAIT = "        if (c >= staging_slots) {\n            copied_in[s].synchronize();\n        }\n"
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
LAB09_CHOSEN = "wait: polling\n# cpu: polling's CPU/wall on the H200, 2026-12-03: the core is busy, with the host's work.\ncpu: 1.00\n"
LAB09_POLLING = "void wait_polling(cudaStream_t stream, const std::function<void()>& host_work) {"


def host_clock(files: dict[str, str]) -> None:
    """Lab 01's serial run timed with the host's clock instead of CUDA events."""
    rewrite_function(files, LAB01, "float run_serial(", HOST_CLOCK_RUN_SERIAL)
    files[LAB01] = "#include <chrono>\n" + files[LAB01]


CATALOGUE = {
    # Always makes lab05::kChunks chunks, whatever the caller asks for.
    "wrong-lab05-ignores-chunks": Sample(
        replacing(LAB05, (RUN_PIPELINE, RUN_PIPELINE + "    chunks = kChunks;  // ignores the count\n")),
        "05",
        ["ThreeChunks.AnyChunkCountWorks"],
    ),
    # Overlaps as well as the solution, but lays the streams out one per stage, not one per chunk.
    "wrong-lab05-stream-per-stage": Sample(
        rewriting(LAB05, "float run_pipeline(", RUN_PIPELINE_STREAM_PER_STAGE),
        "05",
        ["ThreeChunks.EachChunkRunsInItsOwnStream"],
    ),
    # Records `stop` in the last chunk's stream, which joins nothing (D2H_3 ends last anyway).
    "wrong-lab05-stop-without-join": Sample(
        replacing(
            LAB05,
            (
                "    for (int i = 1; i < chunks; ++i) {\n        chunk_done.record(streams[i].get());\n"
                "        SL_CHECK(cudaStreamWaitEvent(first, chunk_done.get(), 0));\n    }\n    stop.record(first);\n",
                "    stop.record(streams.back().get());  // no join\n",
            ),
        ),
        "05",
        ["ThreeChunks.ReportedSpeedupMatchesTimeline"],
    ),
    "wrong-lab01-host-clock": Sample(host_clock, "01", ["SerialRun.EventTimeMatchesTimeline"]),
    # One stream per chunk, issued stage by stage, with the fork and the join.
    "right-lab05-stage-by-stage": Sample(
        rewriting(LAB05, "float run_pipeline(", RUN_PIPELINE_STAGE_BY_STAGE), "05", []
    ),
    # One cudaMallocAsync holds both device buffers (and one cudaFreeAsync releases it).
    "right-lab04-one-malloc-async": Sample(
        replacing(
            LAB04,
            (
                "    SL_CHECK(cudaMallocAsync(&d_input, bytes, stream));\n"
                "    SL_CHECK(cudaMallocAsync(&d_output, bytes, stream));\n",
                ONE_MALLOC_ASYNC,
            ),
            ("    SL_CHECK(cudaFreeAsync(d_output, stream));\n", ""),
        ),
        "04",
        [],
    ),
    # Predicts that three chunks are no faster than the serial run.
    "wrong-lab05-prediction-no-speedup": Sample(
        replacing(LAB05_PREDICTION, ("speedup: 1.8\n", "speedup: 1.0\n")),
        "05",
        ["ThreeChunks.YourPredictionMatchesTheTimeline"],
    ),
    # No prediction.txt in the submission (the grader stages the unanswered template).
    "wrong-lab01-prediction-missing": Sample(
        lambda files: files.pop(LAB01_PREDICTION),
        "01",
        ["BarrierDemo.YourPredictionMatchesTheTimeline"],
    ),
    # The same prediction written another way (lower case, groups in another order, no comments).
    "right-lab01-prediction-other-notation": Sample(
        lambda files: files.update(
            {LAB01_PREDICTION: "blocking:a<b<c\n  nonblocking :  C + A+B   # all three together\n"}
        ),
        "01",
        [],
    ),
    # Predicts the last stream idle at once and the first still busy after waiting for it.
    "wrong-lab02-prediction-swapped": Sample(
        replacing(
            LAB02_PREDICTION,
            ("last_stream_idle_when_polled: no\n", "last_stream_idle_when_polled: yes\n"),
            ("first_stream_idle_after_sync: yes\n", "first_stream_idle_after_sync: no\n"),
        ),
        "02",
        ["Streams.YourPredictionMatchesTheTimeline"],
    ),
    # Predicts the host waits with pinned buffers and not with pageable ones.
    "wrong-lab04-prediction-swapped": Sample(
        replacing(LAB04_PREDICTION, ("pinned: busy\n", "pinned: done\n"), ("pageable: done\n", "pageable: busy\n")),
        "04",
        ["PageableMemory.YourPredictionMatchesTheTimeline"],
    ),
    # The host refills a staging buffer without waiting for the H2D copy that last read it. The results
    # come out right while the GPU keeps up; the hazard test, with a slow GPU, sees the early reuse.
    "wrong-lab06-staging-reused-early": Sample(
        replacing(LAB06, (LAB06_STAGING_WAIT, "")),
        "06",
        ["ManyChunks.NoBufferReusedBeforeItsLastUseEnded"],
    ),
    # Safe but serial: the host waits for the whole device before every chunk.
    "wrong-lab06-waits-for-the-device": Sample(
        replacing(LAB06, (LAB06_STAGING_WAIT, "        SL_CHECK(cudaDeviceSynchronize());\n")),
        "06",
        ["ManyChunks.CopiesOverlapKernels", "ManyChunks.MakespanNearTheModel"],
    ),
    # The host function makes a CUDA call before it consumes (its result ignored, so nothing else
    # changes). The consumer's thread then shows a runtime call on the recorded timeline.
    "wrong-lab07-host-function-calls-cuda": Sample(
        replacing(
            LAB07,
            (
                "                const auto* delivery = static_cast<const Delivery*>(data);\n",
                "                const auto* delivery = static_cast<const Delivery*>(data);\n"
                "                (void)cudaGetLastError();  // a CUDA call where CUDA forbids one\n",
            ),
        ),
        "07",
        ["HostConsumer.ConsumedInHostFunctionsThatCallNoCuda"],
    ),
    # The stage streams are forked into the capture and never joined back, so ending the capture fails
    # (cudaErrorStreamCaptureUnjoined) and run_graph throws.
    "wrong-lab07-graph-without-join": Sample(
        replacing(
            LAB07,
            (
                "    for (cudaStream_t stage : {copy_in.get(), compute.get(), copy_out.get()}) {\n"
                "        joined.record(stage);\n"
                "        SL_CHECK(cudaStreamWaitEvent(origin.get(), joined.get(), 0));\n"
                "    }\n",
                "",
            ),
        ),
        "07",
        [
            "Graph.ResultsMatchCpuReference",
            "Graph.OneInstantiationLaunchedManyTimes",
            "Graph.ChunksOverlapInsideEachLaunch",
        ],
    ),
    # run_split streams all the data through the first GPU of the job and leaves the other idle. The
    # results are right and every stream and copy is as it should be, on one GPU.
    "wrong-lab08-everything-on-one-gpu": Sample(
        replacing(
            LAB08,
            (
                "    const int gpus = static_cast<int>(job.gpus.size());\n",
                "    const int gpus = job.gpus.empty() ? 0 : 1;  // everything on the first GPU\n",
            ),
        ),
        "08",
        [
            "TwoGpus.BothGpusRunTheirShare",
            "TwoGpus.WorkSplitEvenly",
            "TwoGpus.BothGpusCopyInFromTheHostAtOnce",
            "TwoGpus.FasterThanOneGpu",
        ],
    ),
    # Each chunk's memset made by cudaMemset, in the legacy NULL stream.
    "wrong-lab09-memset-in-null-stream": Sample(
        replacing(LAB09, ("cudaMemsetAsync(device_out[i], 0, bytes, stream)", "cudaMemset(device_out[i], 0, bytes)")),
        "09",
        ["Serialize.EachChunkRunsInItsOwnStream", "Serialize.CopiesOverlapKernels", "Serialize.MakespanNearTheModel"],
    ),
    # Each chunk's pinned staging allocated in the chunk loop.
    "wrong-lab09-pinned-in-the-loop": Sample(
        replacing(
            LAB09,
            (LAB09_STAGING_DECLARED, ""),
            (LAB09_STAGING_SLICE, "        SL_CHECK(cudaMallocHost(&staged[i], bytes));\n"),
            (LAB09_STAGING_FREED, LAB09_SLICES_FREED),
        ),
        "09",
        ["Serialize.NoPinnedAllocationWhileBusy", "Serialize.CopiesOverlapKernels", "Serialize.MakespanNearTheModel"],
    ),
    # Every allocation of the pipeline made before the first chunk's work (cudaMalloc for the whole job's
    # device memory, cudaMallocHost for each chunk's staging) and released after the last chunk's end: the
    # calls that may serialize streams are made while nothing runs.
    "right-lab09-allocate-before-the-loop": Sample(
        replacing(
            LAB09,
            (LAB09_STAGING_DECLARED, ""),
            (
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
            ),
            (LAB09_MALLOC_ASYNC, ""),
            (LAB09_STAGING_SLICE, ""),
            (LAB09_FREE_ASYNC, ""),
            (
                LAB09_STAGING_FREED,
                LAB09_SLICES_FREED + "    SL_CHECK(cudaFree(whole_in));\n    SL_CHECK(cudaFree(whole_out));\n",
            ),
        ),
        "09",
        [],
    ),
    # wait_polling records an event after the stream's work and asks the event (cudaEventQuery) between
    # two slices instead of the stream.
    "right-lab09-polls-an-event": Sample(
        rewriting(
            LAB09_WAITS,
            LAB09_POLLING,
            LAB09_POLLING + "\n"
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
        ),
        "09",
        [],
    ),
    # Waits for each chunk's stream right after queuing it, so that its kernel's error shows in its chunk.
    # Every report is right, with or without launch blocking, and no chunk overlaps another.
    "wrong-lab09-waits-per-chunk": Sample(
        replacing(
            LAB09_LATE_ERROR,
            (
                "        if (error != cudaSuccess) {\n            report = {i, error};\n",
                "        if (error == cudaSuccess) {\n"
                "            error = cudaStreamSynchronize(stream);  // the chunk's error, in its chunk\n"
                "        }\n"
                "        if (error != cudaSuccess) {\n            report = {i, error};\n",
            ),
        ),
        "09",
        ["LateError.ChecksKeepThePipelineOverlapped"],
    ),
    # Task 3's choice is `spin`, with its CPU share quoted right: the waiting thread keeps a core busy for
    # the whole wait and does none of the host's work.
    "wrong-lab09-chooses-spin": Sample(
        replacing(LAB09_CHOICE, (LAB09_CHOSEN, "wait: spin\ncpu: 1.00\n")), "09", ["WaitChoice.SuitsAHostWithOtherWork"]
    ),
    # Task 3's choice is `blocking-sync`, the schedule flag that puts every wait of the process to sleep: a
    # host whose work runs on other threads gets the core back (the grader sets the flag itself).
    "right-lab09-chooses-blocking-sync": Sample(
        replacing(LAB09_CHOICE, (LAB09_CHOSEN, "wait: blocking-sync\ncpu: 0.00\n")), "09", []
    ),
}


def make_catalogue(out: Path) -> list[str]:
    """Writes the catalogue's samples and catalogue-expected.json into `out` (emptied first)."""
    fresh_folder(out)
    expected = {}
    for name, (make, lab, fails) in CATALOGUE.items():
        files = student_files("solution")
        make(files)
        write_folder(out / name, files)
        expected[name] = {"lab": lab, "fails": fails}
    (out / "catalogue-expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    return sorted(CATALOGUE)
