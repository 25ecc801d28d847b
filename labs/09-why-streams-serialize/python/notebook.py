# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lab 09: why streams serialize
#
# A pipeline in lab 05's shape, four chunks in four streams, with right results and a timeline like a
# staircase: chunk 2 starts only when chunk 1 is done. A few ordinary calls in the chunk loop make the
# streams wait for each other: `cudaMalloc` and `cudaFree` per chunk, a `cudaMemset` in the legacy
# NULL stream, a `cudaMallocHost` per chunk. Task 1 replaces each with its stream-ordered form, or
# moves it before the loop, until the streams overlap again.
#
# You change `run_pipeline` in `serialize.py`, the file that `./course check 09 --python` grades.
# This notebook only reads that file: edit it in any editor, then run the notebook again from the top.
# Without a GPU, every cell that needs one says so and shows the modelled picture instead.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("09")

# %% [markdown]
# ## Your function
#
# As it stands in your file now.

# %%
lab.show_function("serialize", "run_pipeline")

# %% [markdown]
# ## The run
#
# The grading's own set-up: the job sized for this GPU, your `run_pipeline` once to warm up and
# once more while the timeline is recorded. The runtime calls that can make streams wait for each
# other are counted beside it; look for a gap between one chunk's end and the next chunk's start.


# %%
def run():
    import serialize
    import streamlab
    from lab09 import CHUNKS, PageableFloats, job_over

    prepared = streamlab.prepare_pipeline(streamlab.device_facts(0))
    output = PageableFloats(prepared.memory.n)  # run_pipeline writes its results into pageable memory
    job = job_over(prepared.memory, output, prepared.iterations)
    serialize.run_pipeline(job, CHUNKS)  # once to warm up
    with streamlab.record("lab09 python run_pipeline") as timeline:
        serialize.run_pipeline(job, CHUNKS)
    calls = timeline.api_calls
    print(", ".join(f"{name}: {calls.get(name, 0)}" for name in ("cudaMalloc", "cudaFree", "cudaMallocHost")))
    print(f"ops in the NULL stream: {streamlab.null_stream_ops(timeline.ops)}")
    return timeline


timeline = lab.record(run)
lab.show_timeline(timeline)

# %% [markdown]
# ## The model beside it
#
# The model's schedule of the same work (the module `streamlab`), from stage times measured in this
# run, beneath the recorded timeline: the streams of a pipeline freed of its hidden waits come close to it.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## The verdict
#
# `./course check 09 --python`, as you would run it in a terminal: points per test, measured values
# next to their thresholds, hints. Without a GPU it grades nothing and says so (exit status 77).

# %%
lab.check()
