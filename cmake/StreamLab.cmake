# Helpers that every part of the course builds with.
#
#   streamlab_add_test_executable(NAME SOURCES ... [GPU] [TIMEOUT s] [LIBRARIES ...])
#       A GoogleTest executable for common/ or tools; its tests are discovered
#       when ctest runs (one process per test, and the build needs no GPU).
#
#   streamlab_add_lab(lab_file)
#       One lab, as its labs/NN-topic/lab.json declares it (common/lab.schema.json
#       says what each key means and its default; labs/AUTHORING.md how a lab is
#       written), recorded once and judged outside (common/RECORD_FORMAT.md), built
#       twice: against yours, the student's code (labs/NN-topic: targets
#       labNN_yours_run and labNN_yours_record, tests labNN.yours.*) and against its
#       solution (solutions/NN-topic: labNN_solution_*). The recording program
#       (recorder) is the only one besides the lab's program that links the
#       student's code; the judges (test_source, with judge_sources) are built once,
#       as labNN_judge, without it, and each graded test runs one judge on the
#       record. The course's side of the lab (course_sources) is built once too, as
#       the object library labNN_course_side: only the student's library differs
#       between the two variants. The lab's Python version (python) is registered
#       with the module (streamlab_register_python_labs).
#
#   streamlab_link_graded_code(TARGET LIBRARY [COURSE course_library ...])
#       Links a lab's student library into TARGET after the course's own code
#       (streamlab_support and streamlab, unless COURSE names others), so that no
#       course symbol can be replaced by the student's (see below).

# A lab's executables are linked from objects (the course's, compiled once, and
# the student's library): their link line stays one plain command, which the
# grader reads to link a submission's objects in place of the starter's
# (tools/coursecli/course_build.py), rather than response files.
set(CMAKE_CUDA_USE_RESPONSE_FILE_FOR_OBJECTS 0)
set(CMAKE_CUDA_USE_RESPONSE_FILE_FOR_LIBRARIES 0)

# Where the student's sources (the "yours" variant) are read from: labs/, which
# holds the starter until the student edits it. The grader points this at a
# student's submission; everything else (tests, points, CMake) stays the course's.
set(STREAMLAB_STARTER_ROOT "${PROJECT_SOURCE_DIR}/labs" CACHE PATH
    "Folder holding the NN-topic folders of the student's sources (the yours variant)")
set(STREAMLAB_SOLUTION_ROOT "${PROJECT_SOURCE_DIR}/solutions" CACHE PATH
    "Folder holding the NN-topic solution folders")
# Where the yours tests read the student's answer files (answer_files of the lab file). Empty:
# next to the student's sources. The grader builds the course once per batch and
# sets a placeholder that each submission's copy of the test list replaces.
set(STREAMLAB_ANSWER_ROOT "" CACHE PATH "Folder holding the NN-topic folders with the student's answer files")

# GoogleTest prints "[  SKIPPED ] Suite.Name" for GTEST_SKIP(); without this
# ctest would count the test as passed. (The trailing space keeps "]" away from
# the "]]" that newer GoogleTest modules write around property values.)
set(STREAMLAB_SKIP_REGEX "\\[  SKIPPED \\] ")
# The words the grader trusts (kSkipNoGpu, ...), stated once in common/grader_words.json,
# which the Python tools read too. CMake reads it with string(JSON).
set(STREAMLAB_GRADER_WORDS_FILE "${PROJECT_SOURCE_DIR}/common/grader_words.json")
file(READ "${STREAMLAB_GRADER_WORDS_FILE}" STREAMLAB_GRADER_WORDS)
set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${STREAMLAB_GRADER_WORDS_FILE}")

# The text of `name`, one of the words the grader trusts.
function(streamlab_grader_word name out_var)
  string(JSON count LENGTH "${STREAMLAB_GRADER_WORDS}" words)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON word_name GET "${STREAMLAB_GRADER_WORDS}" words ${i} name)
    if(word_name STREQUAL name)
      string(JSON text GET "${STREAMLAB_GRADER_WORDS}" words ${i} text)
      set(${out_var} "${text}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "${STREAMLAB_GRADER_WORDS_FILE} defines no ${name}")
endfunction()

# Writes the C++ header streamlab/grader_words.hpp (one constant per word, and the
# table of their Python names) from the words' file into `include_dir`, through
# the template common/grader_words.hpp.in. Stops where a word breaks the file's
# stated format, which C++ and Python both rely on.
function(streamlab_grader_words_header include_dir)
  string(JSON count LENGTH "${STREAMLAB_GRADER_WORDS}" words)
  math(EXPR last "${count} - 1")
  set(GRADER_WORD_CONSTANTS "")
  set(GRADER_WORD_TABLE "")
  foreach(i RANGE ${last})
    string(JSON name GET "${STREAMLAB_GRADER_WORDS}" words ${i} name)
    string(JSON text GET "${STREAMLAB_GRADER_WORDS}" words ${i} text)
    string(JSON about GET "${STREAMLAB_GRADER_WORDS}" words ${i} about)
    if(NOT name MATCHES "^k[A-Z][A-Za-z0-9]*$" OR text MATCHES "[\"\\]")
      message(FATAL_ERROR "${STREAMLAB_GRADER_WORDS_FILE}: word ${i} (${name}) is not a kCamelCase name "
                          "with a text of no quote and no backslash")
    endif()
    # kSkipNoGpu -> SKIP_NO_GPU (tools/coursecli/grader_words.py names them the same way).
    string(SUBSTRING "${name}" 1 -1 python_name)
    string(REGEX REPLACE "([a-z0-9])([A-Z])" "\\1_\\2" python_name "${python_name}")
    string(TOUPPER "${python_name}" python_name)
    string(APPEND GRADER_WORD_CONSTANTS "/// ${about}\ninline constexpr char ${name}[] = \"${text}\";\n")
    string(APPEND GRADER_WORD_TABLE "    {\"${python_name}\", ${name}},\n")
  endforeach()
  configure_file("${PROJECT_SOURCE_DIR}/common/grader_words.hpp.in" "${include_dir}/streamlab/grader_words.hpp" @ONLY)
endfunction()

# What a lab declares (labs/NN-topic/lab.json): every key, what it means and its
# default, stated once in common/lab.schema.json, which the tools read too
# (tools/coursecli/lab_declaration.py). CMake reads both with string(JSON).
set(STREAMLAB_LAB_SCHEMA_FILE "${PROJECT_SOURCE_DIR}/common/lab.schema.json")
file(READ "${STREAMLAB_LAB_SCHEMA_FILE}" STREAMLAB_LAB_SCHEMA)
set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${STREAMLAB_LAB_SCHEMA_FILE}")

# Stops configuring where the JSON object `object` (at `where` in the lab file
# `file`) lacks a member that `rules`, its part of the lab schema, requires,
# naming the member with what the schema says of it. (The tools hold a lab file
# to the whole schema; CMake needs its required members.)
function(streamlab_require_lab_members file where object rules)
  string(JSON count LENGTH "${rules}" required)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON key GET "${rules}" required ${i})
    string(JSON value ERROR_VARIABLE absent GET "${object}" ${key})
    if(absent)
      string(JSON about GET "${rules}" properties ${key} description)
      message(FATAL_ERROR "${file}: ${where}no \"${key}\": ${about}")
    endif()
  endforeach()
endfunction()

# Sets out_var to member `key` of the JSON object `object`, whose part of the lab
# schema is `rules`; where the object leaves it out, to the default the schema
# states (empty where it states none). An array becomes a list.
function(streamlab_lab_member object rules key out_var)
  set(json "${object}")
  set(path ${key})
  string(JSON type ERROR_VARIABLE absent TYPE "${json}" ${path})
  if(absent)
    set(json "${rules}")
    set(path properties ${key} default)
    string(JSON type ERROR_VARIABLE no_default TYPE "${json}" ${path})
    if(no_default)
      set(${out_var} "" PARENT_SCOPE)
      return()
    endif()
  endif()
  set(value "")
  if(type STREQUAL "ARRAY")
    string(JSON count LENGTH "${json}" ${path})
    math(EXPR last "${count} - 1")
    if(count GREATER 0)  # (RANGE 0 -1 would count down)
      foreach(i RANGE ${last})
        string(JSON item GET "${json}" ${path} ${i})
        list(APPEND value "${item}")
      endforeach()
    endif()
  else()
    string(JSON value GET "${json}" ${path})
  endif()
  set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

# Sets out_var to the graded tests the lab file `file` (JSON `lab_json`) declares,
# as a flat list of triples: Suite.Name gpu|cpu points.
function(streamlab_lab_tests file lab_json out_var)
  string(JSON test_rules GET "${STREAMLAB_LAB_SCHEMA}" properties tests items)
  string(JSON count LENGTH "${lab_json}" tests)
  if(count EQUAL 0)
    message(FATAL_ERROR "${file}: \"tests\" lists no test")
  endif()
  math(EXPR last "${count} - 1")
  set(triples "")
  foreach(i RANGE ${last})
    string(JSON test GET "${lab_json}" tests ${i})
    streamlab_require_lab_members("${file}" "tests[${i}]: " "${test}" "${test_rules}")
    foreach(member IN ITEMS name device points)
      string(JSON value GET "${test}" ${member})
      list(APPEND triples "${value}")
    endforeach()
  endforeach()
  set(${out_var} "${triples}" PARENT_SCOPE)
endfunction()

# Where each judge writes GoogleTest's own XML report (<dir>/<ctest name>.xml) and
# each recording its record. Empty: the build's judge-reports and records folders.
# The grader sets it: a pass needs that report (scoring.py).
set(STREAMLAB_GTEST_XML_DIR "" CACHE PATH "Folder for the lab tests' GoogleTest XML reports (the grader's)")
# Seconds each test may run (a hung kernel is killed then). A cache variable so
# that the grader can lower it: `course grade --timeout S`.
set(STREAMLAB_DEFAULT_TIMEOUT 120 CACHE STRING "Timeout of each test, in seconds")

function(streamlab_add_test_executable name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "GPU" "TIMEOUT" "SOURCES;LIBRARIES")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT ${STREAMLAB_DEFAULT_TIMEOUT})
  endif()
  add_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE streamlab_testing GTest::gtest_main ${arg_LIBRARIES})
  if(arg_GPU)
    # GPU tests share one lock: they must never run at the same time, or their
    # timelines and timings would mix.
    set(lock RESOURCE_LOCK gpu)
    set(kind gpu)
  else()
    set(lock "")
    set(kind cpu)
  endif()
  # gtest_discover_tests cannot forward a list-valued property, so a test
  # executable gets one label here (gpu or cpu); the folder's LABELS
  # directory property adds the rest (e.g. "common").
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS ${kind} TIMEOUT ${arg_TIMEOUT} ${lock}
               SKIP_REGULAR_EXPRESSION "${STREAMLAB_SKIP_REGEX}")
endfunction()

# The course's code on the link line before the student's: the course's
# libraries whole (every object loaded), and only then the student's library.
# A weak (inline, template) symbol both define resolves to the course's, the
# first one loaded; a strong duplicate is a "multiple definition" link error.
# (A `main` of the student's never replaces the program's: that `main` is one of
# the course's objects, given to the executable itself.)
# (Raw linker flags rather than $<LINK_LIBRARY:WHOLE_ARCHIVE,...>: CMake refuses
# a library that appears both whole and plain, as streamlab does through
# streamlab_support. The plain targets at the end give usage requirements and
# build order.)
function(streamlab_link_graded_code target library)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "COURSE")
  if(NOT arg_COURSE)
    set(arg_COURSE streamlab_support streamlab)
  endif()
  set(whole "")
  foreach(course_library IN LISTS arg_COURSE)
    list(APPEND whole "$<TARGET_FILE:${course_library}>")
  endforeach()
  target_link_libraries(${target} PRIVATE "-Wl,--whole-archive" ${whole} "-Wl,--no-whole-archive"
                        ${library} ${arg_COURSE})
endfunction()

# The graded test at `index` of a list of triples (streamlab_lab_tests): its name, gpu|cpu and points.
macro(streamlab_test_triple tests index name device points)
  list(GET ${tests} ${index} ${name})
  math(EXPR streamlab_next "${index} + 1")
  list(GET ${tests} ${streamlab_next} ${device})
  math(EXPR streamlab_next "${index} + 2")
  list(GET ${tests} ${streamlab_next} ${points})
endmacro()

# Where a lab's `variant` (yours or solution) of `folder` lives: out_var is set to it.
function(streamlab_variant_folder variant folder out_var)
  if(variant STREQUAL "yours")
    set(${out_var} "${STREAMLAB_STARTER_ROOT}/${folder}" PARENT_SCOPE)
  else()
    set(${out_var} "${STREAMLAB_SOLUTION_ROOT}/${folder}" PARENT_SCOPE)
  endif()
endfunction()

# Where the graded tests of `variant` of `folder` find the student's answer files:
# the variant's folder, or for yours the grader's copy (STREAMLAB_ANSWER_ROOT).
function(streamlab_answer_folder variant folder out_var)
  streamlab_variant_folder(${variant} "${folder}" answer_dir)
  if(variant STREQUAL "yours" AND STREAMLAB_ANSWER_ROOT)
    set(answer_dir "${STREAMLAB_ANSWER_ROOT}/${folder}")
  endif()
  set(${out_var} "${answer_dir}" PARENT_SCOPE)
endfunction()

# A lab's CPU test (cpu_test of its lab file): the grader's questions asked of
# made-up records. `test_source`, named test_NAME_cpu.cpp, and the course sources
# it tests (`ARGN`, in `lab_dir`) become the executable ${lab}_NAME_test, which may
# build its ops with common/tests/op_builder.hpp. One ctest test, ${lab}.NAME, for
# the whole executable, not one per GoogleTest test: a grader's copy of the build
# has no GoogleTest discovery files for executables outside the lab's own tests.
function(streamlab_add_lab_cpu_test lab lab_dir test_source)
  if(NOT test_source MATCHES "^test_(.+)_cpu\\.cpp$")
    message(FATAL_ERROR "${lab}: cpu_test starts with its test source, test_NAME_cpu.cpp, not '${test_source}'")
  endif()
  set(name "${CMAKE_MATCH_1}")
  set(sources "${test_source}" ${ARGN})
  list(TRANSFORM sources PREPEND "${lab_dir}/")
  add_executable(${lab}_${name}_test ${sources})
  target_include_directories(${lab}_${name}_test PRIVATE "${lab_dir}" "${PROJECT_SOURCE_DIR}/common/tests")
  target_link_libraries(${lab}_${name}_test PRIVATE streamlab_support GTest::gtest_main)
  add_test(NAME ${lab}.${name} COMMAND ${lab}_${name}_test)
  set_tests_properties(${lab}.${name} PROPERTIES LABELS cpu TIMEOUT 60)
endfunction()

# Where the recording run of a lab's `variant` writes its record: beside the
# GoogleTest reports where the grader chose a folder for them (its copy of the
# test list points that folder at each submission's own), else in the build.
# Its name, labNN.VARIANT.record.jsonl, is the one the tools give a run's record
# (tools/coursecli/recording.py, record_file).
function(streamlab_record_file lab variant out_var)
  set(folder "${CMAKE_BINARY_DIR}/records")
  if(STREAMLAB_GTEST_XML_DIR)
    set(folder "${STREAMLAB_GTEST_XML_DIR}")
  endif()
  set(${out_var} "${folder}/${lab}.${variant}.record.jsonl" PARENT_SCOPE)
endfunction()

# The recording run of a lab's `variant` (its recorder): one ctest
# test, ${lab}.${variant}.record, worth no points, that runs the recording program
# under the harness (common/support/src/record_harness.cpp) and is the fixture
# every judge of the variant requires. The harness's own deadline is the lab's
# timeout: a hang costs that once. out_var is set to the record's path.
# The recording program is the command after the arguments (ARGN): an executable,
# or a Python track's interpreter and recording script.
function(streamlab_add_record_test lab variant timeout out_var)
  streamlab_record_file(${lab} ${variant} record_file)
  string(REGEX REPLACE "^lab" "" number "${lab}")
  set(name ${lab}.${variant}.record)
  add_test(NAME ${name}
           COMMAND $<TARGET_FILE:streamlab_record> --lab ${number} --out "${record_file}" --timeout ${timeout}
                   -- ${ARGN})
  math(EXPR harness_timeout "${timeout} + 30")
  set_tests_properties(${name} PROPERTIES
      LABELS "${lab};${variant};gpu;pts:0"
      TIMEOUT ${harness_timeout}
      SKIP_REGULAR_EXPRESSION "${STREAMLAB_SKIP_REGEX}"
      RESOURCE_LOCK gpu
      FIXTURES_SETUP ${name})
  set(${out_var} "${record_file}" PARENT_SCOPE)
endfunction()

# One judge of a recorded lab as the ctest test `ctest_name`: `judge` (the lab's
# judges) filtered to `test_name`, reading `record_file` after the recording (the
# fixture `fixture`), the answer files in `answer_dir`. It needs no GPU of its own.
# It writes GoogleTest's XML report, <ctest name>.xml, where the grader chose
# (STREAMLAB_GTEST_XML_DIR) or else in the build's judge-reports folder: the
# tools read the verdict's proof and what the judge measured (its hints, its
# notes: streamlab/testing.hpp) there (tools/coursecli/results.py).
function(streamlab_add_judge_test ctest_name judge test_name labels timeout answer_dir record_file fixture)
  set(report_folder "${CMAKE_BINARY_DIR}/judge-reports")
  if(STREAMLAB_GTEST_XML_DIR)
    set(report_folder "${STREAMLAB_GTEST_XML_DIR}")
  endif()
  add_test(NAME ${ctest_name} COMMAND ${judge} --gtest_filter=${test_name} --gtest_brief=0
                                      "--gtest_output=xml:${report_folder}/${ctest_name}.xml")
  set_tests_properties(${ctest_name} PROPERTIES
      LABELS "${labels}"
      TIMEOUT ${timeout}
      SKIP_REGULAR_EXPRESSION "${STREAMLAB_SKIP_REGEX}"
      # A filter that matches nothing must fail, not pass.
      FAIL_REGULAR_EXPRESSION "0 tests from 0 test suites ran"
      ENVIRONMENT "STREAMLAB_ANSWER_DIR=${answer_dir};STREAMLAB_RECORD=${record_file}"
      FIXTURES_REQUIRED ${fixture})
endfunction()

function(streamlab_add_lab lab_file)
  get_filename_component(folder "${lab_file}" DIRECTORY)
  get_filename_component(folder "${folder}" NAME)
  if(NOT folder MATCHES "^([0-9][0-9])-[a-z0-9][a-z0-9-]*$")
    message(FATAL_ERROR "${lab_file}: a lab's folder is named NN-topic (05-three-chunks), not '${folder}'")
  endif()
  set(number "${CMAKE_MATCH_1}")
  set(lab "lab${number}")
  set(lab_dir "${PROJECT_SOURCE_DIR}/labs/${folder}")
  file(READ "${lab_file}" lab_json)
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${lab_file}")
  streamlab_require_lab_members("${lab_file}" "" "${lab_json}" "${STREAMLAB_LAB_SCHEMA}")
  foreach(key IN ITEMS student_sources program recorder test_source judge_sources course_sources
                       course_libraries cpu_test timeout simulated_kernels)
    string(TOUPPER "${key}" variable)
    streamlab_lab_member("${lab_json}" "${STREAMLAB_LAB_SCHEMA}" ${key} arg_${variable})
  endforeach()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT ${STREAMLAB_DEFAULT_TIMEOUT})
  endif()
  if(STREAMLAB_SIMULATED_GPU)
    # Nothing links CUPTI in the simulated build (StreamLabSimulatedGpu.cmake): a
    # lab's course side reads the tracer's clock through streamlab::trace_clock_ns.
    list(REMOVE_ITEM arg_COURSE_LIBRARIES CUDA::cupti)
  endif()
  streamlab_lab_tests("${lab_file}" "${lab_json}" arg_TESTS)
  list(LENGTH arg_TESTS n_items)

  # The course's objects, compiled once for both variants: the program, the
  # recording program and the lab's course side. They are added to each
  # executable as objects (not linked as libraries), so the link order that
  # streamlab_link_graded_code sets stays the only one. The recording program is
  # the only one besides the program that links the student's code.
  add_library(${lab}_program_objects OBJECT "${lab_dir}/${arg_PROGRAM}")
  target_link_libraries(${lab}_program_objects PRIVATE streamlab_support streamlab streamlab_census)
  add_library(${lab}_recorder_objects OBJECT "${lab_dir}/${arg_RECORDER}")
  target_link_libraries(${lab}_recorder_objects PRIVATE streamlab_support streamlab)
  set(course_objects ${lab}_program_objects ${lab}_recorder_objects)
  # The judges (test_source), built once without the student's code: they read the record.
  add_executable(${lab}_judge "${lab_dir}/${arg_TEST_SOURCE}")
  target_link_libraries(${lab}_judge PRIVATE streamlab_testing GTest::gtest_main)
  target_include_directories(${lab}_judge PRIVATE "${lab_dir}")
  target_compile_features(${lab}_judge PRIVATE cxx_std_17)
  # Outside the labs' folder, where the grader's copy of the test list keeps pointing at it.
  set_target_properties(${lab}_judge PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/judges")
  # The same judges grade the lab's Python track (streamlab_register_python_labs).
  set_property(GLOBAL PROPERTY "STREAMLAB_JUDGES_${lab}" ${arg_TIMEOUT} ${arg_TESTS})
  if(arg_JUDGE_SOURCES)
    # The course's questions the judges ask of the record (plain C++, no GPU).
    list(TRANSFORM arg_JUDGE_SOURCES PREPEND "${lab_dir}/")
    target_sources(${lab}_judge PRIVATE ${arg_JUDGE_SOURCES})
  endif()
  if(arg_COURSE_SOURCES)
    list(TRANSFORM arg_COURSE_SOURCES PREPEND "${lab_dir}/")
    add_library(${lab}_course_side OBJECT ${arg_COURSE_SOURCES})
    target_link_libraries(${lab}_course_side PRIVATE streamlab_support streamlab ${arg_COURSE_LIBRARIES})
    # Position-independent, so that a shared library (the Python module) can take the same objects.
    set_target_properties(${lab}_course_side PROPERTIES POSITION_INDEPENDENT_CODE ON)
    list(APPEND course_objects ${lab}_course_side)
  endif()
  foreach(objects IN LISTS course_objects)
    target_include_directories(${objects} PRIVATE "${lab_dir}")
    target_compile_features(${objects} PRIVATE cxx_std_17 cuda_std_17)
  endforeach()
  set(course_side "")
  if(arg_COURSE_SOURCES)
    set(course_side "$<TARGET_OBJECTS:${lab}_course_side>")
  endif()
  # The simulated GPU's models of the lab's own kernels, for the programs that launch them (none outside the
  # simulated build: StreamLabSimulatedGpu.cmake).
  streamlab_add_simulated_kernels(${lab} "${lab_dir}" simulated_kernels ${arg_SIMULATED_KERNELS})
  if(arg_CPU_TEST)
    streamlab_add_lab_cpu_test(${lab} "${lab_dir}" ${arg_CPU_TEST})
  endif()

  foreach(variant IN ITEMS yours solution)
    streamlab_variant_folder(${variant} "${folder}" source_dir)
    streamlab_answer_folder(${variant} "${folder}" answer_dir)
    set(student_files "")
    foreach(file IN LISTS arg_STUDENT_SOURCES)
      list(APPEND student_files "${source_dir}/${file}")
    endforeach()

    # The student's code (or the solution), as a library of its own objects
    # only: it sees the core's headers (not the support layer's, which only the
    # lab's programs use) but brings none of the course's code,
    # which streamlab_link_graded_code puts first on the link line.
    add_library(${lab}_${variant} STATIC ${student_files})
    target_include_directories(${lab}_${variant} PUBLIC "${lab_dir}"
                               "$<TARGET_PROPERTY:streamlab,INTERFACE_INCLUDE_DIRECTORIES>")
    target_compile_features(${lab}_${variant} PUBLIC cxx_std_17 cuda_std_17)
    # Line numbers of the student's code, host (-g) and device (-lineinfo), so
    # that compute-sanitizer (`course check NN --sanitize`) can name the file and
    # line of each finding. Neither changes the code the compiler generates.
    target_compile_options(${lab}_${variant} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo -g> $<$<COMPILE_LANGUAGE:CXX>:-g>)

    add_executable(${lab}_${variant}_run $<TARGET_OBJECTS:${lab}_program_objects> ${course_side}
                   ${simulated_kernels})
    streamlab_link_graded_code(${lab}_${variant}_run ${lab}_${variant})
    target_link_libraries(${lab}_${variant}_run PRIVATE streamlab_census ${arg_COURSE_LIBRARIES})

    set(recording_exe ${lab}_${variant}_record)
    add_executable(${recording_exe} $<TARGET_OBJECTS:${lab}_recorder_objects> ${course_side}
                   ${simulated_kernels})
    streamlab_link_graded_code(${recording_exe} ${lab}_${variant})
    target_link_libraries(${recording_exe} PRIVATE ${arg_COURSE_LIBRARIES})
    # Made of objects only, so CMake cannot tell the link language from a source.
    set_target_properties(${lab}_${variant}_run ${recording_exe} PROPERTIES LINKER_LANGUAGE CUDA)
    streamlab_add_record_test(${lab} ${variant} ${arg_TIMEOUT} record_file $<TARGET_FILE:${recording_exe}>)

    # One ctest test per graded test, so each carries its own points label.
    set(declared "")
    set(index 0)
    while(index LESS n_items)
      streamlab_test_triple(arg_TESTS ${index} test_name device points)
      list(APPEND declared ${test_name})
      streamlab_add_judge_test(${lab}.${variant}.${test_name} ${lab}_judge ${test_name}
                               "${lab};${variant};${device};pts:${points}" ${arg_TIMEOUT} "${answer_dir}"
                               "${record_file}" ${lab}.${variant}.record)
      math(EXPR index "${index} + 3")
    endwhile()

    # Every test in the source must be declared above (and so carry points).
    add_test(NAME ${lab}.${variant}.all_tests_declared
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${lab}_judge> "-DDECLARED=${declared}"
                     -P "${PROJECT_SOURCE_DIR}/cmake/check_declared_tests.cmake")
    set_tests_properties(${lab}.${variant}.all_tests_declared PROPERTIES
        LABELS "${lab};${variant};cpu;pts:0" TIMEOUT 60)
  endforeach()

  string(JSON python_json ERROR_VARIABLE no_python GET "${lab_json}" python)
  if(NOT no_python)
    streamlab_add_python_lab("${lab_file}" ${number} ${folder} "${python_json}")
  endif()
endfunction()

# A lab's Python version (labs/NN-topic/python/; `python` of the lab file
# `lab_file`, JSON `python_json`): the student's module(s) and its recorder, the
# course's program that runs them in the C++ lab's scenarios and writes the same
# record (common/RECORD_FORMAT.md). The C++ lab's judges grade that record, test
# for test and point for point (ctest tests labNN.python-yours.record,
# labNN.python-yours.Suite.Name, and the same for python-solution). The recorder
# imports the module `streamlab`, so its tests are registered by
# python/CMakeLists.txt, with the module (streamlab_register_python_labs), which
# also compiles in the lab's bindings (streamlab_add_lab_bindings).
function(streamlab_add_python_lab lab_file number folder python_json)
  string(JSON rules GET "${STREAMLAB_LAB_SCHEMA}" properties python)
  streamlab_require_lab_members("${lab_file}" "python: " "${python_json}" "${rules}")
  streamlab_lab_member("${python_json}" "${rules}" recorder recorder)
  streamlab_lab_member("${python_json}" "${rules}" bindings bindings)
  set_property(GLOBAL APPEND PROPERTY STREAMLAB_PYTHON_LABS "${folder}")
  set_property(GLOBAL PROPERTY "STREAMLAB_PYTHON_RECORDER_${folder}" "${recorder}")
  if(bindings)
    list(TRANSFORM bindings PREPEND "${PROJECT_SOURCE_DIR}/labs/${folder}/")
    set_property(GLOBAL APPEND PROPERTY STREAMLAB_PYTHON_BINDINGS "${number}")
    set_property(GLOBAL PROPERTY "STREAMLAB_PYTHON_BINDINGS_${number}" ${bindings})
  endif()
endfunction()

# A Python lab recorded once (its recorder, streamlab_add_python_lab): per variant,
# its recording (labNN.python-VARIANT.record: `recorder` run by `python` under the
# harness, from the student's folder) and the C++ lab's judges on that record
# (labNN.python-VARIANT.Suite.Name, with the C++ lab's points), so that one judge
# grades both tracks. The answer files (the C++ lab's answer_files) sit in the
# Python folder, where a student of that track works.
function(streamlab_register_recorded_python_lab python number folder recorder)
  set(lab lab${number})
  get_property(judges GLOBAL PROPERTY "STREAMLAB_JUDGES_${lab}")
  list(POP_FRONT judges timeout)
  list(LENGTH judges n_items)
  foreach(variant IN ITEMS yours solution)
    streamlab_variant_folder(${variant} "${folder}/python" source_dir)
    streamlab_answer_folder(${variant} "${folder}/python" answer_dir)
    set(track python-${variant})
    streamlab_add_record_test(${lab} ${track} ${timeout} record_file "${python}" "${recorder}")
    set_tests_properties(${lab}.${track}.record PROPERTIES
        WORKING_DIRECTORY "${source_dir}"
        LABELS "${lab};${track};python;gpu;pts:0"
        # The student's folder first, then the lab's interface, the module, the course's helpers.
        ENVIRONMENT "PYTHONPATH=${source_dir}:${PROJECT_SOURCE_DIR}/labs/${folder}/python:${STREAMLAB_PYTHON_PATH};PYTHONSAFEPATH=1;PYTHONDONTWRITEBYTECODE=1")
    set(index 0)
    while(index LESS n_items)
      streamlab_test_triple(judges ${index} test_name device points)
      streamlab_add_judge_test(${lab}.${track}.${test_name} $<TARGET_FILE:${lab}_judge> ${test_name}
                               "${lab};${track};python;${device};pts:${points}" ${timeout} "${answer_dir}"
                               "${record_file}" ${lab}.${track}.record)
      math(EXPR index "${index} + 3")
    endwhile()
  endforeach()
endfunction()

# Registers every Python lab's tests for `python` (the interpreter the module
# was built for; python/CMakeLists.txt sets STREAMLAB_PYTHON_PATH): its recordings
# and the C++ judges on them (streamlab_register_recorded_python_lab).
function(streamlab_register_python_labs python)
  get_property(python_labs GLOBAL PROPERTY STREAMLAB_PYTHON_LABS)
  foreach(folder IN LISTS python_labs)
    string(SUBSTRING "${folder}" 0 2 number)
    get_property(recorder GLOBAL PROPERTY "STREAMLAB_PYTHON_RECORDER_${folder}")
    streamlab_register_recorded_python_lab(${python} ${number} ${folder}
                                           "${PROJECT_SOURCE_DIR}/labs/${folder}/python/${recorder}")
  endforeach()
endfunction()
