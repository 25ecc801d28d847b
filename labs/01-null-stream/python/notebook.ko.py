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
# # 랩 01: NULL stream
#
# stream(스트림)은 큐입니다. host가 명령을 넣으면 GPU가 넣은 순서대로 꺼내 씁니다.
# stream을 지정하지 않으면 명령은 NULL stream으로 갑니다. 여기서는 일 하나를 그렇게 보냅니다.
# 입력을 device로 복사하고, 그 위에서 커널을 돌리고, 결과를 되가져옵니다. 겹치는 것이 없으니 어느
# 순간에나 GPU의 세 유닛(들여오는 복사 엔진, 계산 유닛, 내보내는 복사 엔진) 중 둘은 놀고, 타임라인은
# 계단 모양이 됩니다. 랩의 README가 legacy NULL stream의 장벽을 다루는 두 번째 과제까지
# 전부 설명합니다.
#
# 여러분은 `null_stream.py`에 `run_serial` 함수를 작성합니다. `./course
# check 01 --python`이 채점하는 바로 그 파일입니다. 이 노트북은 그 파일을 읽기만 하니, 아무
# 편집기에서나 고친 뒤 노트북을 처음부터 다시 실행하세요. GPU가 없으면 GPU가 필요한 셀마다 그렇다고
# 밝히고, 실행 대신 모델로 그린 그림을 보여 줍니다.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("01")

# %% [markdown]
# ## 여러분의 함수
#
# 지금 파일에 있는 그대로입니다.

# %%
lab.show_function("null_stream", "run_serial")

# %% [markdown]
# ## 실행
#
# 채점이 쓰는 준비 그대로입니다. pinned memory에 있는 64 MiB 입력으로 여러분의
# `run_serial`을 실행하는 동안 GPU의 타임라인을 기록합니다. 그림은 GPU가 한 일을 보여
# 줍니다. 한 stream 안에서 막대 셋이 차례로 이어집니다.


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
# ## 나란히 보는 모델
#
# 코스의 파이프라인 모델(모듈 `streamlab`)을 기록된 타임라인 아래에 그립니다. 한 덩어리로 보낸
# 일에서는 모델도 바로 그 계단입니다. 일을 조각으로 자르면 무엇을 얻는지는 랩 05가 보여 줍니다.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## 판정
#
# 터미널에서 실행할 때와 똑같은 `./course check 01 --python`입니다. 테스트별 점수,
# 기준값 옆의 측정값, 힌트를 보여 줍니다. GPU가 없으면 아무것도 채점하지 않고 그렇다고 알립니다(종료
# 상태 77).

# %%
lab.check()
