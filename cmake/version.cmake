# Writes the build identity header (daemon/version.h.in) with the source tree's current git
# revision. Run at every build (the diskperf_version target in CMakeLists.txt), not only at
# configure time, so that diskperf_build_info{revision} names the commit that was built; the file
# is rewritten only when its text changes, so an unchanged revision rebuilds nothing.
# Inputs (-D): SRC (source dir), OUT (header path), PROJECT_VERSION, CMAKE_CXX_COMPILER_ID,
# CMAKE_CXX_COMPILER_VERSION.
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SRC}
  OUTPUT_VARIABLE DISKPERF_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET RESULT_VARIABLE _git_rc)
if(NOT _git_rc EQUAL 0 OR DISKPERF_REVISION STREQUAL "")
  set(DISKPERF_REVISION "unknown")
endif()
configure_file(${SRC}/daemon/version.h.in ${OUT} @ONLY)
