# Lab 08: two GPUs. The files a student edits, the program, and the graded tests
# with their points. Tests: Suite.Name  gpu|cpu  points. GPUS 2: the tests need
# two GPUs at once; on a machine with one they are not graded (and say why).
streamlab_add_lab(
  NUMBER 08
  TOPIC two-gpus
  GPUS 2
  STUDENT_SOURCES two_gpus.cu
  PROGRAM run_lab08.cu
  TEST_SOURCE test_lab08.cu
  # The course's side of the lab (the memory it hands your code: host memory from
  # your allocate_portable, each GPU's device buffers) and the grader's questions
  # about the records (two_gpu_timeline): objects of their own, never the
  # student's library.
  COURSE_SOURCES course_side.cpp two_gpu_timeline.cpp
  TESTS
    TwoGpus.ResultsMatchCpuReference         gpu 2
    TwoGpus.BothGpusRunTheirShare            gpu 3
    TwoGpus.WorkSplitEvenly                  gpu 2
    TwoGpus.BothGpusCopyInFromTheHostAtOnce  gpu 2
    TwoGpus.EachGpuHasStreamsOfItsOwn        gpu 1
    TwoGpus.PinnedMemoryIsPortable           gpu 2
    TwoGpus.FasterThanOneGpu                 gpu 4
    Handoff.ResultsMatchCpuReference         gpu 1
    Handoff.CrossDeviceWaitRespected         gpu 3
    Handoff.PeerCopyRecorded                 gpu 2
)


# The grader's reading of the records, on made-up timelines: no GPU needed. One
# ctest test for the whole executable (not one per GoogleTest test, whose
# discovery file a grader's copy of the build would not have).
add_executable(lab08_two_gpu_timeline_test "${CMAKE_CURRENT_LIST_DIR}/test_two_gpu_timeline_cpu.cpp"
               "${CMAKE_CURRENT_LIST_DIR}/two_gpu_timeline.cpp")
target_include_directories(lab08_two_gpu_timeline_test PRIVATE "${CMAKE_CURRENT_LIST_DIR}")
target_link_libraries(lab08_two_gpu_timeline_test PRIVATE streamlab_support GTest::gtest_main)
add_test(NAME lab08.two_gpu_timeline COMMAND lab08_two_gpu_timeline_test)
set_tests_properties(lab08.two_gpu_timeline PROPERTIES LABELS cpu TIMEOUT 60)
