# The `docs` target: the API documentation, built with Doxygen into
# <build>/docs/html (`./course docs` builds it).
#
# Doxygen is optional: without it the project configures and builds as usual,
# and the `docs` target only says that Doxygen is missing (and fails). A
# warning, such as a public name without a comment, fails the target
# (WARN_AS_ERROR in Doxyfile.in).

# A copy of the course made for grading (`course grade`, the Gradescope
# autograder) leaves the Doxygen configuration out: it has no docs to build.
if(NOT EXISTS "${PROJECT_SOURCE_DIR}/Doxyfile.in")
  add_custom_target(docs
    COMMAND "${CMAKE_COMMAND}" -E echo "API docs not built: this copy of the course has no Doxyfile.in"
    COMMAND "${CMAKE_COMMAND}" -E false
    VERBATIM)
  return()
endif()

find_package(Doxygen OPTIONAL_COMPONENTS dot)

set(STREAMLAB_DOCS_OUTPUT "${PROJECT_BINARY_DIR}/docs")

# The inputs: the public API, each lab's interface header and README, the
# trace format, the course README (the main page), its architecture page and the instructors' guide.
# Globbed, so that a new lab is documented without editing this file.
file(GLOB streamlab_lab_interfaces CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/labs/*/lab[0-9][0-9].hpp")
file(GLOB streamlab_lab_readmes CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/labs/*/README.md")
set(streamlab_docs_inputs
    "${PROJECT_SOURCE_DIR}/README.md"
    "${PROJECT_SOURCE_DIR}/ARCHITECTURE.md"
    "${PROJECT_SOURCE_DIR}/INSTRUCTORS.md"
    "${PROJECT_SOURCE_DIR}/common/include/streamlab"
    "${PROJECT_BINARY_DIR}/generated/include/streamlab/grader_words.hpp"  # written from common/grader_words.json
    "${PROJECT_SOURCE_DIR}/common/support/include/streamlab"
    ${streamlab_lab_interfaces}
    ${streamlab_lab_readmes}
    "${PROJECT_SOURCE_DIR}/common/TRACE_FORMAT.md")
# A README's figures (![...](file.png)) lie next to it. Only the folders of
# READMEs that show one are searched, and the Markdown filter writes each figure
# with its folder (04-async-copies/timeline-h200.png): labs hold figures of the same name.
# (Read when CMake configures: a README that starts showing a figure needs a
# new configure, or Doxygen warns that it cannot find the image.)
set(streamlab_docs_images "")
foreach(streamlab_readme IN LISTS streamlab_lab_readmes)
  file(STRINGS "${streamlab_readme}" streamlab_readme_figures REGEX "!\\[[^]]*\\]\\([^/)]+\\)")
  if(streamlab_readme_figures)
    get_filename_component(streamlab_lab_folder "${streamlab_readme}" DIRECTORY)
    list(APPEND streamlab_docs_images "${streamlab_lab_folder}")
  endif()
endforeach()

# Doxygen lists are space-separated; quote each path in case it holds spaces.
list(TRANSFORM streamlab_docs_inputs REPLACE "(.+)" "\"\\1\"")
list(TRANSFORM streamlab_docs_images REPLACE "(.+)" "\"\\1\"")
list(JOIN streamlab_docs_inputs " \\\n                         " STREAMLAB_DOCS_INPUT)
list(JOIN streamlab_docs_images " \\\n                         " STREAMLAB_DOCS_IMAGE_PATH)

# The Markdown filter (tools/doxygen_markdown.py) runs with the course's Python.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(streamlab_docs_python "${Python3_EXECUTABLE}")
else()
  set(streamlab_docs_python python3)
endif()
set(STREAMLAB_DOCS_MARKDOWN_FILTER "${streamlab_docs_python} ${PROJECT_SOURCE_DIR}/tools/doxygen_markdown.py")

if(DOXYGEN_DOT_FOUND)
  set(STREAMLAB_DOCS_HAVE_DOT YES)
  get_filename_component(STREAMLAB_DOCS_DOT_PATH "${DOXYGEN_DOT_EXECUTABLE}" DIRECTORY)
else()
  set(STREAMLAB_DOCS_HAVE_DOT NO)
  set(STREAMLAB_DOCS_DOT_PATH "")
endif()

configure_file("${PROJECT_SOURCE_DIR}/Doxyfile.in" "${STREAMLAB_DOCS_OUTPUT}/Doxyfile" @ONLY)

if(DOXYGEN_FOUND)
  add_custom_target(docs
    COMMAND "${CMAKE_COMMAND}" -E remove_directory "${STREAMLAB_DOCS_OUTPUT}/html"
    COMMAND Doxygen::doxygen "${STREAMLAB_DOCS_OUTPUT}/Doxyfile"
    COMMAND "${CMAKE_COMMAND}" -E echo "API documentation: ${STREAMLAB_DOCS_OUTPUT}/html/index.html"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "Doxygen: the API documentation (a warning fails the build)"
    VERBATIM)
else()
  message(STATUS "Doxygen not found: the docs target only says so (apt-get install doxygen graphviz)")
  add_custom_target(docs
    COMMAND "${CMAKE_COMMAND}" -E echo
            "API docs not built: Doxygen is not installed (Debian/Ubuntu: apt-get install doxygen graphviz; then reconfigure)"
    COMMAND "${CMAKE_COMMAND}" -E false
    VERBATIM)
endif()
