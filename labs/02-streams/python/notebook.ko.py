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
# # 랩 02: stream 만들기
#
# 랩 01에서는 모든 것이 한 큐에 들어가서 모든 것이 차례로 돌았습니다. 여기서는 stream을 직접
# 만들고, 서로 관계없는 커널 넷에 stream을 하나씩 줍니다. 다른 stream의 작업 사이에는 순서가
# 없으니 GPU는 커널 넷을 동시에 돌릴 수 있고, 대부분의 GPU는 실제로 그렇게 합니다. 타임라인에는 막대
# 넷이 한 줄로 늘어서는 대신 위아래로 겹쳐 쌓입니다. 만든 stream은 직접 없애야 하고, 채점기는 그것도
# 확인합니다.
#
# 여러분은 `streams.py`에 `run_in_streams`와 `run_in_null_stream`
# 함수를 작성합니다. `./course check 02 --python`이 채점하는 바로 그 파일입니다. 이
# 노트북은 그 파일을 읽기만 하니, 아무 편집기에서나 고친 뒤 노트북을 처음부터 다시 실행하세요. GPU가
# 없으면 GPU가 필요한 셀마다 그렇다고 밝히고, 실행 대신 모델로 그린 그림을 보여 줍니다.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("02")

# %% [markdown]
# ## 여러분의 함수
#
# 지금 파일에 있는 그대로입니다.

# %%
lab.show_function("streams", "run_in_streams", "run_in_null_stream")

# %% [markdown]
# ## 실행
#
# 채점이 쓰는 준비 그대로입니다. 저마다 자기 버퍼를 쓰는 작은 커널 넷을 non-blocking
# stream으로 실행하는 여러분의 `run_in_streams`를 기록합니다. 그림에서 stream마다 한
# 줄입니다.


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
# ## 나란히 보는 모델
#
# 같은 일에 대한 코스의 모델(모듈 `streamlab`)을 기록된 타임라인 아래에 그립니다.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## 판정
#
# 터미널에서 실행할 때와 똑같은 `./course check 02 --python`입니다. 테스트별 점수,
# 기준값 옆의 측정값, 힌트를 보여 줍니다. GPU가 없으면 아무것도 채점하지 않고 그렇다고 알립니다(종료
# 상태 77).

# %%
lab.check()
