# Lab 08: two GPUs. The files a student edits, the program, and the graded tests
# with their points. Tests: Suite.Name  gpu|cpu  points. GPUS 2: the tests need
# two GPUs at once; on a machine with one they are not graded (and say why).
streamlab_add_lab(
  NUMBER 08
  TOPIC two-gpus
  GPUS 2
  STUDENT_SOURCES two_gpus.cu
  PROGRAM run_lab08.cpp
  # Recorded once, judged outside: record_lab08.cpp runs your code on both GPUs
  # in each scenario the tests need (on a machine with one GPU it records only
  # that the lab needs two, and every test is not graded, with that reason); the
  # tests of test_lab08.cpp judge its record, asking two_gpu_timeline.cpp's
  # questions.
  RECORDER record_lab08.cpp
  DRAWN_SCENARIO split
  TEST_SOURCE test_lab08.cpp
  JUDGE_SOURCES two_gpu_timeline.cpp
  # The course's side of the lab (the memory it hands your code: host memory from
  # your allocate_portable, each GPU's device buffers) and the grader's questions
  # about the records (two_gpu_timeline, which the program asks too): objects of
  # their own, never the student's library.
  COURSE_SOURCES course_side.cpp two_gpu_timeline.cpp
  # The grader's questions asked of made-up records, no GPU needed: the ctest
  # test lab08.two_gpu_timeline (see cmake/StreamLab.cmake).
  CPU_TEST test_two_gpu_timeline_cpu.cpp two_gpu_timeline.cpp
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
