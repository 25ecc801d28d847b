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
# # Lab 03: pinned memory
#
# So far the course handed you pinned host memory. Here you get it yourself, in the three ways CUDA
# offers: `cudaMallocHost`, `cudaHostAlloc` with flags, and `cudaHostRegister`, which pins memory you
# already have. Pinned memory makes copies faster, not kernels: the copy engines read it directly,
# while a copy from ordinary (pageable) memory first passes through a staging buffer of the driver.
# The GPU's own record says, for every copy, which kind of memory it came from.
#
# You write the allocation, pinning and copy functions in `pinned_memory.py`, the file that `./course
# check 03 --python` grades. This notebook only reads that file: edit it in any editor, then run the
# notebook again from the top. Without a GPU, every cell that needs one says so and shows the modelled
# picture instead.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("03")

# %% [markdown]
# ## Your function
#
# As it stands in your file now.

# %%
lab.show_function(
    "pinned_memory",
    "allocate_pinned",
    "allocate_pinned_with_flags",
    "free_pinned",
    "pin_in_place",
    "unpin",
    "copy_both_ways",
)

# %% [markdown]
# ## The run
#
# The grading's own set-up: the same copies, one small and one large each way, first from pageable
# memory, then from memory your `allocate_pinned` returned, recorded. The pinned copies are the
# shorter bars.


# %%
def run():
    import pinned_memory
    import streamlab
    from lab03 import HostBuffer, run_copies
    from streamlab import recording

    facts = streamlab.device_facts(0)
    large = recording.largest_copy_bytes(64 << 20, facts.total_memory_bytes, recording.available_host_memory_bytes())
    sizes = [max(4096, large // 64), large]
    device = streamlab.DeviceFloats(large // 4)
    with streamlab.record("lab03 python run_copies, pageable and cudaMallocHost") as timeline:
        for kind in (HostBuffer.PAGEABLE, HostBuffer.MALLOC_HOST):
            run_copies(pinned_memory, kind, sizes, 3, device.address)
    return timeline


timeline = lab.record(run)
lab.show_timeline(timeline)

# %% [markdown]
# ## The model beside it
#
# The course's model of the recorded copies (the module `streamlab`). The model describes one
# pipeline: where the run falls into several phases, `course plot` says so instead of drawing it.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## The verdict
#
# `./course check 03 --python`, as you would run it in a terminal: points per test, measured values
# next to their thresholds, hints. Without a GPU it grades nothing and says so (exit status 77).

# %%
lab.check()
