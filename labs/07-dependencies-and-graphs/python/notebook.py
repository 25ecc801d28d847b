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
# # Lab 07: dependencies and graphs
#
# Lab 05 gave each chunk a stream and let stream order keep its steps in line. Here the layout turns
# on its side: one stream per stage (copies in, kernels, copies out), with events carrying each chunk
# from one stage's stream to the next. The lab goes on to host functions that the GPU calls when a
# chunk's results arrive, a CUDA graph captured once and launched many times, and a stream of greater
# priority; this notebook runs the first task.
#
# You write `queue_stages` and `run_stage_streams` in `dependencies.py`, the file that `./course check
# 07 --python` grades. This notebook only reads that file: edit it in any editor, then run the
# notebook again from the top. Without a GPU, every cell that needs one says so and shows the modelled
# picture instead.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("07")

# %% [markdown]
# ## Your function
#
# As it stands in your file now.

# %%
lab.show_function("dependencies", "queue_stages", "run_stage_streams")

# %% [markdown]
# ## The run
#
# The grading's own set-up: the pipeline through your three stage streams, once to warm up and
# once more while the timeline is recorded. Each stage is a row: each chunk's kernel must start after
# its copy in has ended.


# %%
def run():
    import dependencies
    import streamlab
    from lab07 import CHUNKS, job_over

    prepared = streamlab.prepare_pipeline(streamlab.device_facts(0))
    job = job_over(prepared.memory, prepared.iterations)
    dependencies.run_stage_streams(job, CHUNKS)  # once to warm up
    with streamlab.record("lab07 python run_stage_streams") as timeline:
        dependencies.run_stage_streams(job, CHUNKS)
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
# `./course check 07 --python`, as you would run it in a terminal: points per test, measured values
# next to their thresholds, hints. Without a GPU it grades nothing and says so (exit status 77).

# %%
lab.check()
