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
# # Lab 05: the three-chunk overlap
#
# The lab the course leads up to, and the article's own example. Lab 01's job is cut into three
# chunks, each with a non-blocking stream of its own, so that while the kernel works on one chunk a
# copy engine already brings in the next and another takes the previous one's results out. How close
# you come is judged against the pipeline model: with stage times h, k and d per chunk, N chunks take
# at best `h + k + d + (N - 1) max(h, k, d)`.
#
# You write `run_pipeline` in `three_chunks.py`, the file that `./course check 05 --python` grades.
# This notebook only reads that file: edit it in any editor, then run the notebook again from the top.
# Without a GPU, every cell that needs one says so and shows the modelled picture instead.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("05")

# %% [markdown]
# ## Your function
#
# As it stands in your file now.

# %%
lab.show_function("three_chunks", "run_pipeline")

# %% [markdown]
# ## The run
#
# The grading's own set-up: the job sized for this GPU, your `run_pipeline` once to warm up and
# once more while the timeline is recorded. Look for a kernel of one stream beside a copy of another.


# %%
def run():
    import streamlab
    import three_chunks
    from lab05 import CHUNKS, job_over

    prepared = streamlab.prepare_pipeline(streamlab.device_facts(0))
    job = job_over(prepared.memory, prepared.iterations)
    three_chunks.run_pipeline(job, CHUNKS)  # once to warm up
    with streamlab.record("lab05 python run_pipeline") as timeline:
        three_chunks.run_pipeline(job, CHUNKS)
    return timeline


timeline = lab.record(run)
lab.show_timeline(timeline)

# %% [markdown]
# ## The model beside it
#
# The model's schedule of the same work (the module `streamlab`), from stage times measured in this
# run, beneath the recorded timeline: the gap between the two is what your pipeline left on the table.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## The verdict
#
# `./course check 05 --python`, as you would run it in a terminal: points per test, measured values
# next to their thresholds, hints. Without a GPU it grades nothing and says so (exit status 77).

# %%
lab.check()
