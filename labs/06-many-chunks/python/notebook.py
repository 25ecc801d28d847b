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
# # Lab 06: many chunks, few streams
#
# Real streaming pipelines do not keep the whole input in pinned memory. The host copies each piece
# into a small ring of pinned staging buffers, N chunks go through K streams that each own a set of
# device buffers, and the results come back into a ring of pinned results buffers that the host
# drains. Every buffer is used again and again, and events are what make that safe: no buffer is
# overwritten or read before the work on it has finished.
#
# You write `run_stream` in `many_chunks.py`, the file that `./course check 06 --python` grades. This
# notebook only reads that file: edit it in any editor, then run the notebook again from the top.
# Without a GPU, every cell that needs one says so and shows the modelled picture instead.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("06")

# %% [markdown]
# ## Your function
#
# As it stands in your file now.

# %%
lab.show_function("many_chunks", "run_stream")

# %% [markdown]
# ## The run
#
# The grading's own set-up: the stream of chunks through the rings, your `run_stream` once to warm up
# and once more while the timeline is recorded.


# %%
def run():
    import many_chunks
    import streamlab
    from lab06 import job_over

    course = streamlab.lab06
    host = course.HostStream(streamlab.pipeline_elements(streamlab.device_facts(0).total_memory_bytes))
    graded = course.GradedJob(host, course.MODEL_SHAPE, course.BALANCED, streamlab.measure_h2d_ms(host.n * 4))
    job = job_over(graded.job)
    many_chunks.run_stream(job)  # once to warm up
    with streamlab.record("lab06 python run_stream") as timeline:
        many_chunks.run_stream(job)
    return timeline


timeline = lab.record(run)
lab.show_timeline(timeline)

# %% [markdown]
# ## The model beside it
#
# The model's schedule of the same work (the module `streamlab`), beneath the recorded timeline.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## The verdict
#
# `./course check 06 --python`, as you would run it in a terminal: points per test, measured values
# next to their thresholds, hints. Without a GPU it grades nothing and says so (exit status 77).

# %%
lab.check()
