# The simulated GPU's timeline of lab 05 (ctest test simgpu.lab05.overlap, in the
# simulated build): the solution's copies overlap its kernels, the starter's do not.
#
#   cmake -DSOLUTION=<lab05_solution_run> -DSTARTER=<lab05_yours_run>
#         -DANALYZE=<streamlab_analyze> -DWORK=<folder> -P check_simulated_overlap.cmake
#
# Each program runs its pipeline on the simulated GPU and writes the timeline
# (--trace); streamlab_analyze measures it. The starter computes nothing, so its
# program fails its result check: only its timeline is asked for.

foreach(variable IN ITEMS SOLUTION STARTER ANALYZE WORK)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "check_simulated_overlap.cmake needs -D${variable}=...")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK}")

# Runs `program` with --trace and sets out_var to the copy-with-compute overlap
# (ns) of the pipeline's timeline; `must_succeed`: the program must exit 0.
function(simulated_overlap name program must_succeed out_var)
  set(trace "${WORK}/${name}.json")
  file(REMOVE "${trace}")
  execute_process(COMMAND "${program}" --trace "${trace}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
  message(STATUS "${name}: ${program} --trace ${trace} (exit ${status})\n${output}${errors}")
  if(must_succeed AND NOT status EQUAL 0)
    message(FATAL_ERROR "${name}: the program failed on the simulated GPU (exit ${status}); its output is above")
  endif()
  if(NOT EXISTS "${trace}")
    message(FATAL_ERROR "${name}: the program wrote no timeline to ${trace}; its output is above")
  endif()
  execute_process(COMMAND "${ANALYZE}" "${trace}" RESULT_VARIABLE status OUTPUT_VARIABLE summary
                  ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${name}: streamlab_analyze could not read ${trace}: ${errors}")
  endif()
  string(JSON overlap GET "${summary}" copy_compute_overlap_ns)
  string(JSON makespan GET "${summary}" makespan_ns)
  string(JSON ops GET "${summary}" op_count)
  message(STATUS "${name}: ${ops} ops, makespan ${makespan} ns, copies overlap kernels for ${overlap} ns")
  set(${out_var} ${overlap} PARENT_SCOPE)
endfunction()

simulated_overlap(solution "${SOLUTION}" TRUE solution_overlap)
simulated_overlap(starter "${STARTER}" FALSE starter_overlap)
if(NOT solution_overlap GREATER 0)
  message(FATAL_ERROR "the solution's copies do not overlap its kernels on the simulated GPU")
endif()
if(NOT starter_overlap EQUAL 0)
  message(FATAL_ERROR "the starter's copies overlap kernels on the simulated GPU (${starter_overlap} ns), "
                      "though it queues no work")
endif()
message(STATUS "the solution's copies overlap its kernels on the simulated GPU, the starter's do not")
