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
# # Lab 01: the NULL stream
#
# A stream is a queue: the host puts work in, the GPU takes it out in the order it went in. Name no
# stream and the work lands in the NULL stream. Here one job goes that way: the input is copied to the
# device, a kernel runs on it, the results come back. Nothing overlaps, so at every moment two of the
# GPU's three units (the copy engine in, the compute units, the copy engine out) have nothing to do,
# and the timeline looks like a staircase. The lab's README tells the whole story, with a second task
# on the legacy NULL stream's barrier.
#
# You write `run_serial` in `null_stream.py`, the file that `./course check 01 --python` grades. This
# notebook only reads that file: edit it in any editor, then run the notebook again from the top.
# Without a GPU, every cell that needs one says so and shows the modelled picture instead.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("01")

# %% [markdown]
# ## Your function
#
# As it stands in your file now.

# %%
lab.show_function("null_stream", "run_serial")

# %% [markdown]
# ## The run
#
# The grading's own set-up: 64 MiB of pinned input, and your `run_serial` while the GPU's timeline
# is recorded. The picture shows what the GPU did: three bars one after another, in one stream.


# %%
def run():
    import null_stream
    import streamlab

    n = 16 << 20
    host_input, host_output = streamlab.PinnedFloats(n), streamlab.PinnedFloats(n)
    streamlab.fill_input(host_input.address, n)
    iterations = streamlab.iterations_for_kernel_ms(n, streamlab.measure_h2d_ms(host_input.nbytes))
    with streamlab.record("lab01 python run_serial") as timeline:
        null_stream.run_serial(host_input.address, host_output.address, n, iterations)
    return timeline


timeline = lab.record(run)
lab.show_timeline(timeline)

# %% [markdown]
# ## The model beside it
#
# The course's pipeline model (the module `streamlab`), drawn beneath the recorded timeline: for a job
# in one piece it is the staircase itself; lab 05 shows what cutting the job into chunks buys.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## The verdict
#
# `./course check 01 --python`, as you would run it in a terminal: points per test, measured values
# next to their thresholds, hints. Without a GPU it grades nothing and says so (exit status 77).

# %%
lab.check()
