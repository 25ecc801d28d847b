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
# # 랩 06: 많은 조각, 적은 stream
#
# 실제 스트리밍 파이프라인은 입력 전체를 pinned memory에 두지 않습니다. host가 조각마다
# 데이터를 작은 pinned 중간 버퍼(staging buffer)의 고리에 복사하고, 조각 N개가 저마다
# device 버퍼 한 벌을 가진 stream K개를 지나가며, 결과는 host가 비워 가는 pinned 결과
# 버퍼의 고리로 돌아옵니다. 버퍼마다 거듭 다시 쓰이고, 그것을 안전하게 만드는 것이 이벤트입니다. 어떤
# 버퍼도 그 위의 작업이 끝나기 전에 덮어쓰거나 읽지 않습니다.
#
# 여러분은 `many_chunks.py`에 `run_stream` 함수를 작성합니다. `./course
# check 06 --python`이 채점하는 바로 그 파일입니다. 이 노트북은 그 파일을 읽기만 하니, 아무
# 편집기에서나 고친 뒤 노트북을 처음부터 다시 실행하세요. GPU가 없으면 GPU가 필요한 셀마다 그렇다고
# 밝히고, 실행 대신 모델로 그린 그림을 보여 줍니다.

# %%
from streamlab_notebook import LabNotebook  # python/streamlab_notebook.py, installed by ./course setup

lab = LabNotebook("06")

# %% [markdown]
# ## 여러분의 함수
#
# 지금 파일에 있는 그대로입니다.

# %%
lab.show_function("many_chunks", "run_stream")

# %% [markdown]
# ## 실행
#
# 채점이 쓰는 준비 그대로입니다. 고리들을 지나는 조각의 흐름으로 여러분의 `run_stream`을 한 번
# 예열하고, 한 번 더 실행하며 타임라인을 기록합니다.


# %%
def run():
    import many_chunks
    import streamlab
    from lab06 import job_over

    course = streamlab.lab06
    host = course.HostStream(streamlab.pipeline_elements(streamlab.device_facts(0).total_memory_bytes))
    graded = course.GradedJob(host, course.MODEL_SHAPE, course.BALANCED, streamlab.measure_h2d_ms(host.n * 4))
    job = job_over(graded.job)
    many_chunks.run_stream(job)  # once to warm up
    with streamlab.record("lab06 python run_stream") as timeline:
        many_chunks.run_stream(job)
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
# 터미널에서 실행할 때와 똑같은 `./course check 06 --python`입니다. 테스트별 점수,
# 기준값 옆의 측정값, 힌트를 보여 줍니다. GPU가 없으면 아무것도 채점하지 않고 그렇다고 알립니다(종료
# 상태 77).

# %%
lab.check()
