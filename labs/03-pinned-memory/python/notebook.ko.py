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
# # 랩 03: pinned memory
#
# 지금까지는 코스가 pinned memory를 마련해 주었습니다. 여기서는 CUDA가 주는 세 가지 방법으로
# 직접 얻습니다. `cudaMallocHost`, 플래그를 주는 `cudaHostAlloc`, 그리고 이미
# 있는 메모리를 그 자리에서 고정하는 `cudaHostRegister`입니다. pinned memory가
# 빠르게 하는 것은 커널이 아니라 복사입니다. 복사 엔진은 pinned memory를 직접 읽지만,
# 일반(pageable) 메모리에서의 복사는 먼저 드라이버의 중간 버퍼를 거칩니다. GPU가 남긴 기록은
# 복사마다 어느 쪽 메모리에서 왔는지 알려 줍니다.
#
# 여러분은 `pinned_memory.py`에 할당, 고정, 복사 함수를 작성합니다. `./course
# check 03 --python`이 채점하는 바로 그 파일입니다. 이 노트북은 그 파일을 읽기만 하니, 아무
# 편집기에서나 고친 뒤 노트북을 처음부터 다시 실행하세요. GPU가 없으면 GPU가 필요한 셀마다 그렇다고
# 밝히고, 실행 대신 모델로 그린 그림을 보여 줍니다.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("03")

# %% [markdown]
# ## 여러분의 함수
#
# 지금 파일에 있는 그대로입니다.

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
# ## 실행
#
# 채점이 쓰는 준비 그대로입니다. 방향마다 작은 복사와 큰 복사를 하나씩, 먼저 pageable
# memory에서, 다음에는 여러분의 `allocate_pinned`가 돌려준 메모리에서 하며 기록합니다.
# 짧은 막대가 pinned 복사입니다.


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
# ## 나란히 보는 모델
#
# 기록된 복사에 대한 코스의 모델(모듈 `streamlab`)입니다. 모델은 파이프라인 하나를 설명하므로,
# 실행이 여러 단계로 나뉘면 `course plot`은 그리지 않고 그렇다고 알립니다.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## 판정
#
# 터미널에서 실행할 때와 똑같은 `./course check 03 --python`입니다. 테스트별 점수,
# 기준값 옆의 측정값, 힌트를 보여 줍니다. GPU가 없으면 아무것도 채점하지 않고 그렇다고 알립니다(종료
# 상태 77).

# %%
lab.check()
