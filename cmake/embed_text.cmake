# cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DSYMBOL=<name> -P embed_text.cmake
# Writes a C++ source defining `extern const char* const diskperf::embedded::<SYMBOL>` holding the
# file's text verbatim (a raw string literal), so the binary never reads its tables at run time.
file(READ "${INPUT}" content)
string(FIND "${content}" ")DPEMBED\"" bad)
if(NOT bad EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter")
endif()
# A table may exceed the 65536 characters ISO C++ guarantees for a literal; g++ and clang take any
# length, but clang's -Wpedantic says so (-Woverlength-strings), hence the pragma.
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by cmake/embed_text.cmake. Do not edit.\n"
  "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
  "namespace diskperf::embedded {\n"
  "extern const char* const ${SYMBOL};\n"
  "const char* const ${SYMBOL} = R\"DPEMBED(${content})DPEMBED\";\n"
  "}  // namespace diskperf::embedded\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
