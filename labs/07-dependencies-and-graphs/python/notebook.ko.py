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
# # 랩 07: 의존성과 그래프
#
# 랩 05는 조각마다 stream을 주고, stream의 순서가 조각의 단계들을 줄 세우게 했습니다. 여기서는
# 배치를 옆으로 돌립니다. 단계마다 stream 하나(입력 복사, 커널, 출력 복사)를 두고, 이벤트가 각
# 조각을 한 단계의 stream에서 다음 단계의 stream으로 넘겨줍니다. 랩은 이어서 조각의 결과가
# 도착하면 GPU가 부르는 host 함수, 한 번 캡처해 여러 번 실행하는 CUDA 그래프, 우선순위가 높은
# stream을 다룹니다. 이 노트북은 첫 과제를 실행합니다.
#
# 여러분은 `dependencies.py`에 `queue_stages`와 `run_stage_streams`
# 함수를 작성합니다. `./course check 07 --python`이 채점하는 바로 그 파일입니다. 이
# 노트북은 그 파일을 읽기만 하니, 아무 편집기에서나 고친 뒤 노트북을 처음부터 다시 실행하세요. GPU가
# 없으면 GPU가 필요한 셀마다 그렇다고 밝히고, 실행 대신 모델로 그린 그림을 보여 줍니다.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("07")

# %% [markdown]
# ## 여러분의 함수
#
# 지금 파일에 있는 그대로입니다.

# %%
lab.show_function("dependencies", "queue_stages", "run_stage_streams")

# %% [markdown]
# ## 실행
#
# 채점이 쓰는 준비 그대로입니다. 여러분의 단계별 stream 셋으로 파이프라인을 한 번 예열하고, 한
# 번 더 실행하며 타임라인을 기록합니다. 단계마다 한 줄이며, 조각마다 커널은 그 조각의 입력 복사가 끝난
# 뒤에 시작해야 합니다.


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
# ## 나란히 보는 모델
#
# 같은 일에 대한 모델의 일정(모듈 `streamlab`)을 기록된 타임라인 아래에 그립니다.

# %%
lab.show_model(timeline)

# %% [markdown]
# ## 판정
#
# 터미널에서 실행할 때와 똑같은 `./course check 07 --python`입니다. 테스트별 점수,
# 기준값 옆의 측정값, 힌트를 보여 줍니다. GPU가 없으면 아무것도 채점하지 않고 그렇다고 알립니다(종료
# 상태 77).

# %%
lab.check()
