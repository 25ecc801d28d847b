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
# # Lab 02: creating streams
#
# In lab 01 everything went into one queue, so everything ran in turn. Here you create streams of your
# own and give each of four independent kernels a stream. Nothing orders work in different streams, so
# the GPU may run the four kernels at the same time, and on most GPUs it does: the timeline shows four
# bars stacked on top of each other instead of four in a row. You also destroy the streams you made,
# and the grader checks that you did.
#
# You write `run_in_streams` and `run_in_null_stream` in `streams.py`, the file that `./course check
# 02 --python` grades. This notebook only reads that file: edit it in any editor, then run the
# notebook again from the top. Without a GPU, every cell that needs one says so and shows the modelled
# picture instead.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("02")

# %% [markdown]
# ## Your function
#
# As it stands in your file now.

# %%
lab.show_function("streams", "run_in_streams", "run_in_null_stream")

# %% [markdown]
# ## The run
#
# The grading's own set-up: four small kernels, each over its own buffers, your `run_in_streams`
# with non-blocking streams, recorded. Each stream is a row of the picture.


# %%
def run():
    import streamlab
    import streams
    from cuda.bindings import runtime as cudart
    from lab02 import KernelJob

    n, count = 1 << 20, 4  # four kernels of about 2 ms, each on a quarter of the GPU at most
    max_blocks = max(1, streamlab.device_facts(0).sm_count // count)
    iterations = streamlab.iterations_for_kernel_ms(n, 2.0, max_blocks)
    buffers = [(streamlab.DeviceFloats(n), streamlab.DeviceFloats(n)) for _ in range(count)]
    jobs = [KernelJob(source.address, result.address, n, iterations, max_blocks) for source, result in buffers]
    with streamlab.record("lab02 python run_in_streams") as timeline:
        streams.run_in_streams(jobs, cudart.cudaStreamNonBlocking)
    return timeline


timeline = lab.record(run)
lab.show_timeline(timeline)

# %% [markdown]
# ## The model beside it
#
# The course's model of the same work (the module `streamlab`), beneath the recorded timeline.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## The verdict
#
# `./course check 02 --python`, as you would run it in a terminal: points per test, measured values
# next to their thresholds, hints. Without a GPU it grades nothing and says so (exit status 77).

# %%
lab.check()
