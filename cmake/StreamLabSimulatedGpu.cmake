# Which CUDA runtime the course links: NVIDIA's, or the simulated GPU's.
#
#   STREAMLAB_SIMULATED_GPU (option, preset `sim`, binary dir build-sim)
#       OFF: every program links NVIDIA's CUDA runtime (CUDA::cudart) and the
#            tracer records with CUPTI, as on a machine with a GPU.
#       ON:  every program links streamlab_simgpu (common/simgpu) in its place: a
#            stand-in runtime that does the work on the CPU and schedules it on a
#            model of a GPU, so that a student without an NVIDIA GPU sees the
#            timeline their own stream code would give. Nothing links CUPTI: the
#            tracer reads the simulator's log (common/src/activity_recorder_sim.cpp).
#
#   STREAMLAB_CUDA_RUNTIME
#       The target that provides the cuda... functions: CUDA::cudart or
#       streamlab_simgpu. Link it where CUDA::cudart would be linked.
#
# nvcc still compiles every .cu file in the simulated build: its host code calls
# the runtime's functions, and the kernel launches it emits (the fat binary's
# registration, the launch configuration, cudaLaunchKernel) are what the
# simulator implements.

option(STREAMLAB_SIMULATED_GPU
       "Link the simulated GPU (common/simgpu) in place of the CUDA runtime, and trace from its log, not CUPTI" OFF)

if(STREAMLAB_SIMULATED_GPU)
  set(STREAMLAB_CUDA_RUNTIME streamlab_simgpu)
  # CMake links NVIDIA's runtime (static, by default) into every target with CUDA
  # code of its own accord; None leaves the simulator the only runtime on the line.
  set(CMAKE_CUDA_RUNTIME_LIBRARY None)
  message(STATUS "Simulated GPU: the course links streamlab_simgpu, not the CUDA runtime, and records no CUPTI")
else()
  set(STREAMLAB_CUDA_RUNTIME CUDA::cudart)
endif()

# The simulated build's own check (ctest test simgpu.lab05.overlap, label simgpu):
# on the simulated GPU, lab 05's solution overlaps its copies with its kernels and
# the starter (labs/, as the course ships it) does not. Where lab 05 is missing
# (a grader's copy of the course), there is nothing to check.
function(streamlab_add_simulated_gpu_checks)
  if(NOT TARGET lab05_solution_run OR NOT TARGET lab05_yours_run)
    return()
  endif()
  add_test(NAME simgpu.lab05.overlap
           COMMAND ${CMAKE_COMMAND} -DSOLUTION=$<TARGET_FILE:lab05_solution_run>
                   -DSTARTER=$<TARGET_FILE:lab05_yours_run> -DANALYZE=$<TARGET_FILE:streamlab_analyze>
                   "-DWORK=${CMAKE_BINARY_DIR}/simgpu-checks"
                   -P "${PROJECT_SOURCE_DIR}/cmake/check_simulated_overlap.cmake")
  set_tests_properties(simgpu.lab05.overlap PROPERTIES LABELS "simgpu;cpu" TIMEOUT 120)
endfunction()

# The simulated GPU's models of a lab's own kernels (simulated_kernels in its
# lab.json), in the simulated build only. The simulator (common/) knows no lab:
# a lab whose course side launches kernels of its own brings their models, each
# registered before main (streamlab::simgpu::register_kernel). They become the
# object library ${lab}_simulated_kernels, and out_var the objects to put on the
# link line of each program that launches those kernels: objects, not a library,
# since a linker leaves out a library's object that nothing calls, registration
# and all. Outside the simulated build, or without models, out_var is empty.
function(streamlab_add_simulated_kernels lab lab_dir out_var)
  set(${out_var} "" PARENT_SCOPE)
  if(NOT STREAMLAB_SIMULATED_GPU OR NOT ARGN)
    return()
  endif()
  set(sources ${ARGN})
  list(TRANSFORM sources PREPEND "${lab_dir}/")
  add_library(${lab}_simulated_kernels OBJECT ${sources})
  target_link_libraries(${lab}_simulated_kernels PRIVATE streamlab_simgpu)
  target_include_directories(${lab}_simulated_kernels PRIVATE "${lab_dir}")
  target_compile_features(${lab}_simulated_kernels PRIVATE cxx_std_17)
  # Position-independent, and listed in STREAMLAB_SIMULATED_KERNEL_OBJECTS, for the Python module, which
  # compiles in the labs' course sides (python/CMakeLists.txt).
  set_target_properties(${lab}_simulated_kernels PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set_property(GLOBAL APPEND PROPERTY STREAMLAB_SIMULATED_KERNEL_OBJECTS "$<TARGET_OBJECTS:${lab}_simulated_kernels>")
  set(${out_var} "$<TARGET_OBJECTS:${lab}_simulated_kernels>" PARENT_SCOPE)
endfunction()
