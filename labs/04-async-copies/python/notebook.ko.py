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
# # 랩 04: 비동기 복사
#
# 지금까지 host는 복사마다 그 안에서 기다렸습니다. `cudaMemcpyAsync`를 쓰면 입력 복사,
# 커널, 출력 복사를 직접 만든 stream에 넣고 호출은 곧바로 돌아오므로, device가 복사하고 계산하는
# 동안 host는 자기 일을 합니다. 배치 셋이 그 stream을 지나가고, device 메모리는 stream
# 순서를 따르는 할당기(`cudaMallocAsync`)에서 받으며, 제어가 돌아온 순간 device가 아직
# 바빴는지 보고합니다. pageable memory에서는 같은 호출이 host를 다시 기다리게 만듭니다. 랩은
# 그것도 보여 줍니다.
#
# 여러분은 `async_copies.py`에 `run_batches` 함수를 작성합니다. `./course
# check 04 --python`이 채점하는 바로 그 파일입니다. 이 노트북은 그 파일을 읽기만 하니, 아무
# 편집기에서나 고친 뒤 노트북을 처음부터 다시 실행하세요. GPU가 없으면 GPU가 필요한 셀마다 그렇다고
# 밝히고, 실행 대신 모델로 그린 그림을 보여 줍니다.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("04")

# %% [markdown]
# ## 여러분의 함수
#
# 지금 파일에 있는 그대로입니다.

# %%
lab.show_function("async_copies", "run_batches")

# %% [markdown]
# ## 실행
#
# 채점이 쓰는 준비 그대로입니다. pinned memory에 있는 배치 셋으로 여러분의
# `run_batches`를 실행하며 기록하고, host가 한 일도 GPU의 일 옆에 표시합니다.


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
# ## 나란히 보는 모델
#
# 같은 일에 대한 코스의 모델(모듈 `streamlab`)을 기록된 타임라인 아래에 그립니다.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## 판정
#
# 터미널에서 실행할 때와 똑같은 `./course check 04 --python`입니다. 테스트별 점수,
# 기준값 옆의 측정값, 힌트를 보여 줍니다. GPU가 없으면 아무것도 채점하지 않고 그렇다고 알립니다(종료
# 상태 77).

# %%
lab.check()
