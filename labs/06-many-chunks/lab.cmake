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
  # CUPTI's clock (host_side), and the questions the grader asks of those records
  # (ring_timeline).
  COURSE_SOURCES host_side.cpp ring_timeline.cpp
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
# (cuda-bindings), graded by pytest from the same records with the same questions
# (the module `streamlab`, its submodule lab06). Tests: test_name  gpu|cpu  points.
streamlab_add_python_lab(
  NUMBER 06
  TOPIC many-chunks
  STUDENT_SOURCES many_chunks.py
  TEST_SOURCE test_lab06.py
  # Into the module streamlab: the submodule lab06 (register_lab06) over the course side below.
  BINDINGS python_bindings.cpp host_side.cpp ring_timeline.cpp
  TESTS
    test_results_match_cpu_reference                  gpu 2
    test_results_right_with_a_slow_host               gpu 2
    test_no_buffer_reused_before_its_last_use_ended   gpu 4
    test_work_runs_in_one_stream_per_device_set       gpu 1
    test_copies_overlap_kernels                       gpu 3
    test_makespan_near_the_model                      gpu 3
    test_sweep_reports_the_best_chunk_count           gpu 3
)
