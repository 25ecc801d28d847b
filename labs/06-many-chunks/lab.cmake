# Lab 06: many chunks, few streams. The files a student edits, the program, and
# the graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 06
  TOPIC many-chunks
  STUDENT_SOURCES many_chunks.cu
  PROGRAM run_lab06.cpp
  # Recorded once, judged outside: record_lab06.cpp runs your run_stream and
  # sweep_chunks in each scenario the tests need (graded_jobs.hpp), with the
  # host's fills and drains among each scenario's values; the tests of
  # test_lab06.cpp judge its record, asking ring_timeline.cpp's questions.
  RECORDER record_lab06.cpp
  TEST_SOURCE test_lab06.cpp
  JUDGE_SOURCES ring_timeline.cpp
  # The course's side of the lab (objects of its own, never the student's library):
  # the host that produces and consumes the data and times each fill and drain on
  # CUPTI's clock (host_side), the questions the grader asks of those records
  # (ring_timeline), and what a recording puts into a scenario (recorded_runs,
  # shared with the Python track's recording program).
  COURSE_SOURCES host_side.cpp ring_timeline.cpp recorded_runs.cpp
  COURSE_LIBRARIES CUDA::cupti
  # The grader's questions asked of made-up records, no GPU needed: the ctest
  # test lab06.ring_timeline (see cmake/StreamLab.cmake).
  CPU_TEST test_ring_timeline_cpu.cpp ring_timeline.cpp
  TESTS
    ManyChunks.ResultsMatchCpuReference               gpu 2
    ManyChunks.ResultsRightWithASlowHost              gpu 2
    ManyChunks.NoBufferReusedBeforeItsLastUseEnded    gpu 4
    ManyChunks.WorkRunsInOneStreamPerDeviceSet        gpu 1
    ManyChunks.CopiesOverlapKernels                   gpu 3
    ManyChunks.MakespanNearTheModel                   gpu 3
    ManyChunks.SweepReportsTheBestChunkCount          gpu 3
)

# The Python version (python/): the same tasks with the article's own API
# (cuda-bindings). Recorded once, judged outside, like the C++ track:
# python/record_lab06.py runs your many_chunks.py in the same scenarios and
# writes the same record, and the judges of test_lab06.cpp grade it, test for
# test and point for point.
streamlab_add_python_lab(
  NUMBER 06
  TOPIC many-chunks
  STUDENT_SOURCES many_chunks.py
  RECORDER record_lab06.py
  # Into the module streamlab: the submodule lab06 (register_lab06) over the C++ lab's course side,
  # which record_lab06.py records with.
  BINDINGS python_bindings.cpp host_side.cpp ring_timeline.cpp recorded_runs.cpp
)
