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
# # 랩 05: 세 조각 겹치기
#
# 이 코스 전체가 향해 온 랩이자 글의 예제 그대로입니다. 랩 01의 일을 세 조각(chunk)으로 자르고
# 조각마다 자기 non-blocking stream을 주어, 커널이 한 조각을 계산하는 동안 복사 엔진 하나는
# 벌써 다음 조각을 들여오고 다른 하나는 앞 조각의 결과를 내보내게 합니다. 얼마나 가까이 갔는지는 파이프라인
# 모델로 판단합니다. 조각 하나의 단계 시간이 h, k, d이면 조각 N개는 아무리 빨라도 `h + k + d
# + (N - 1) max(h, k, d)`가 걸립니다.
#
# 여러분은 `three_chunks.py`에 `run_pipeline` 함수를 작성합니다. `./course
# check 05 --python`이 채점하는 바로 그 파일입니다. 이 노트북은 그 파일을 읽기만 하니, 아무
# 편집기에서나 고친 뒤 노트북을 처음부터 다시 실행하세요. GPU가 없으면 GPU가 필요한 셀마다 그렇다고
# 밝히고, 실행 대신 모델로 그린 그림을 보여 줍니다.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("05")

# %% [markdown]
# ## 여러분의 함수
#
# 지금 파일에 있는 그대로입니다.

# %%
lab.show_function("three_chunks", "run_pipeline")

# %% [markdown]
# ## 실행
#
# 채점이 쓰는 준비 그대로입니다. 이 GPU에 맞춘 크기의 일로 여러분의 `run_pipeline`을
# 한 번 예열하고, 한 번 더 실행하며 타임라인을 기록합니다. 한 stream의 커널이 다른 stream의
# 복사와 나란히 있는지 보세요.


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
# ## 나란히 보는 모델
#
# 같은 일에 대한 모델의 일정(모듈 `streamlab`)을, 이번 실행에서 잰 단계 시간으로 기록된 타임라인
# 아래에 그립니다. 둘 사이의 차이가 여러분의 파이프라인이 놓친 몫입니다.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## 판정
#
# 터미널에서 실행할 때와 똑같은 `./course check 05 --python`입니다. 테스트별 점수,
# 기준값 옆의 측정값, 힌트를 보여 줍니다. GPU가 없으면 아무것도 채점하지 않고 그렇다고 알립니다(종료
# 상태 77).

# %%
lab.check()
