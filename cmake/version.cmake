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
else()
  # A tree with changes to tracked files builds something that is not that commit: say so.
  execute_process(COMMAND git status --porcelain --untracked-files=no
    WORKING_DIRECTORY ${SRC}
    OUTPUT_VARIABLE _git_changes OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET RESULT_VARIABLE _git_status_rc)
  if(_git_status_rc EQUAL 0 AND NOT _git_changes STREQUAL "")
    string(APPEND DISKPERF_REVISION "-dirty")
  endif()
endif()
configure_file(${SRC}/daemon/version.h.in ${OUT} @ONLY)
