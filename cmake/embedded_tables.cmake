# diskperf_embedded_tables(SRC_DIR OUT_VAR): rules that compile the tier and
# VM size tables (config/*.csv) into C++ sources (cmake/embed_text.cmake), so
# the binary never reads them at run time; OUT_VAR receives the sources.
# Used by the main build and by the fuzz project (tests/fuzz).
function(diskperf_embedded_tables src_dir out_var)
  set(sources)
  foreach(_embed "tiers_csv;kTiersCsv;config/tiers.csv" "vm_sizes_csv;kVmSizesCsv;config/vm_sizes.csv")
    list(GET _embed 0 _out)
    list(GET _embed 1 _sym)
    list(GET _embed 2 _in)
    set(_cpp ${CMAKE_BINARY_DIR}/generated/embedded_${_out}.cpp)
    add_custom_command(OUTPUT ${_cpp}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${src_dir}/${_in} -DOUTPUT=${_cpp} -DSYMBOL=${_sym}
        -P ${src_dir}/cmake/embed_text.cmake
      DEPENDS ${src_dir}/${_in} ${src_dir}/cmake/embed_text.cmake
      COMMENT "Embedding ${_in}")
    list(APPEND sources ${_cpp})
  endforeach()
  set(${out_var} ${sources} PARENT_SCOPE)
endfunction()
