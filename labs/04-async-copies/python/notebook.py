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
# # Lab 04: asynchronous copies
#
# Until now the host waited inside every copy. With `cudaMemcpyAsync` the copy in, the kernel and the
# copy out are queued into a stream of your own and the calls return at once, so the host gets on with
# its own work while the device copies and computes. Three batches go through that stream, with device
# memory from the stream-ordered allocator (`cudaMallocAsync`), and you report whether the device was
# still busy when control came back. From pageable memory the same call makes the host wait again: the
# lab shows that too.
#
# You write `run_batches` in `async_copies.py`, the file that `./course check 04 --python` grades.
# This notebook only reads that file: edit it in any editor, then run the notebook again from the top.
# Without a GPU, every cell that needs one says so and shows the modelled picture instead.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("04")

# %% [markdown]
# ## Your function
#
# As it stands in your file now.

# %%
lab.show_function("async_copies", "run_batches")

# %% [markdown]
# ## The run
#
# The grading's own set-up: three batches from pinned memory, your `run_batches`, recorded with the
# host's own work marked beside the GPU's.


# %%
def run():
    import async_copies
    import streamlab
    from lab04 import Batch, WaitWith
    from record_lab04 import BATCHES, BYTES, ELEMENTS

    iterations = streamlab.iterations_for_kernel_ms(ELEMENTS, streamlab.measure_h2d_ms(BYTES))
    buffers = streamlab.BatchBuffers(BATCHES, ELEMENTS, True)
    batches = [Batch(buffers.input(b), buffers.output(b)) for b in range(BATCHES)]
    buffers.reset(False)  # the host prepares each next batch's input while the device runs one
    host_work = streamlab.marked_host_work(buffers, True)
    with streamlab.record("lab04 python run_batches") as timeline:
        async_copies.run_batches(batches, ELEMENTS, iterations, WaitWith.STREAM, host_work)
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
# `./course check 04 --python`, as you would run it in a terminal: points per test, measured values
# next to their thresholds, hints. Without a GPU it grades nothing and says so (exit status 77).

# %%
lab.check()
