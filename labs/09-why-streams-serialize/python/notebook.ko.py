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
# # 랩 09: stream이 줄을 서는 이유
#
# 랩 05 모양의 파이프라인입니다. 조각(chunk) 네 개가 stream 네 개에서 돌고, 결과도 맞는데, 타임라인은
# 계단 모양입니다. 조각 2는 조각 1이 끝나야 시작합니다. 조각 루프 안의 평범한 호출 몇 개가 stream들이
# 서로를 기다리게 만듭니다. 조각마다 하는 `cudaMalloc`과 `cudaFree`, legacy NULL stream에 들어가는
# `cudaMemset`, 조각마다 하는 `cudaMallocHost`입니다. 과제 1에서는 stream들이 다시 겹칠 때까지 각 호출을
# stream 순서를 따르는 형태로 바꾸거나 루프 앞으로 옮깁니다.
#
# 여러분은 `serialize.py`의 `run_pipeline` 함수를 고칩니다. `./course check 09 --python`이 채점하는
# 바로 그 파일입니다. 이 노트북은 그 파일을 읽기만 하니, 아무 편집기에서나 고친 뒤 노트북을 처음부터
# 다시 실행하세요. GPU가 없으면 GPU가 필요한 셀마다 그렇다고 밝히고, 실행 대신 모델로 그린 그림을
# 보여 줍니다.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("09")

# %% [markdown]
# ## 여러분의 함수
#
# 지금 파일에 있는 그대로입니다.

# %%
lab.show_function("serialize", "run_pipeline")

# %% [markdown]
# ## 실행
#
# 채점이 쓰는 준비 그대로입니다. 이 GPU에 맞춘 크기의 일로 여러분의 `run_pipeline`을 한 번
# 예열하고, 한 번 더 실행하며 타임라인을 기록합니다. stream들을 서로 기다리게 만들 수 있는 runtime
# 호출의 수도 함께 셉니다. 한 조각이 끝난 뒤 다음 조각이 시작하기까지의 빈틈을 찾아보세요.


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
# ## 나란히 보는 모델
#
# 같은 일에 대한 모델의 일정(모듈 `streamlab`)을, 이번 실행에서 잰 단계 시간으로 기록된 타임라인
# 아래에 그립니다. 숨은 기다림을 걷어 낸 파이프라인의 stream들은 이 일정에 가까워집니다.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## 판정
#
# 터미널에서 실행할 때와 똑같은 `./course check 09 --python`입니다. 테스트별 점수, 기준값 옆의
# 측정값, 힌트를 보여 줍니다. GPU가 없으면 아무것도 채점하지 않고 그렇다고 알립니다(종료 상태 77).

# %%
lab.check()
