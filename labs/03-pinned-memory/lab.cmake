# Lab 03: pinned memory. The files a student edits, the program, and the
# graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 03
  TOPIC pinned-memory
  STUDENT_SOURCES pinned_memory.cu
  # Your prediction, read by Bandwidth.YourPredictionMatchesTheTimeline; never compiled.
  ANSWER_FILES prediction.txt
  PROGRAM run_lab03.cpp
  # Recorded once, judged outside: record_lab03.cpp runs your copies in each
  # scenario the tests need (copy_scenarios.hpp names them); the tests of
  # test_lab03.cpp judge its record.
  RECORDER record_lab03.cpp
  # What `course check` draws of the record: copies_malloc_host, the run the README pictures.
  DRAWN_SCENARIO copies_malloc_host
  TEST_SOURCE test_lab03.cpp
  TESTS
    PinnedCopies.MallocHostCopiesArePinned       gpu 2
    PinnedCopies.HostAllocCopiesArePinned        gpu 2
    PinnedCopies.RegisteredCopiesArePinned       gpu 2
    PinnedCopies.PageableCopiesArePageable       gpu 1
    PinnedAllocations.EveryAllocationIsFreed     gpu 2
    PinnedAllocations.EveryRegistrationIsUndone  gpu 2
    Bandwidth.YourPredictionMatchesTheTimeline   gpu 2
    # Observations, 0 points: once the copies are pinned these show what the
    # platform does, not what you did. The report shows them all the same.
    Bandwidth.PinnedBeatsPageableAtLargeSizes    gpu 0
    Bandwidth.PinnedReachesTheReference          gpu 0
)

# The Python version (python/): Tasks 1 to 3 with the article's own API
# (cuda-bindings). Recorded once, judged outside, like the C++ track:
# python/record_lab03.py runs your pinned_memory.py in the same scenarios and
# writes the same record, and the judges of test_lab03.cpp grade it, test for
# test and point for point; your prediction goes in python/prediction.txt.
streamlab_add_python_lab(
  NUMBER 03
  TOPIC pinned-memory
  STUDENT_SOURCES pinned_memory.py
  RECORDER record_lab03.py
)
