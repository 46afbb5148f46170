# tt_embed(<target-source-var> SYMBOL <name> FILES <files...>): generate a .cpp holding the files.
function(tt_embed out_var)
  cmake_parse_arguments(ARG "" "SYMBOL" "FILES" ${ARGN})
  # A CMake list would be split into several command arguments: pass it with '|' instead.
  string(REPLACE ";" "|" inputs "${ARG_FILES}")
  set(output "${CMAKE_CURRENT_BINARY_DIR}/embedded_${ARG_SYMBOL}.cpp")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} -DSYMBOL=${ARG_SYMBOL} -DOUTPUT=${output} "-DINPUTS=${inputs}"
            -P ${PROJECT_SOURCE_DIR}/tools/embed_files.cmake
    DEPENDS ${ARG_FILES} ${PROJECT_SOURCE_DIR}/tools/embed_files.cmake
    COMMENT "Embedding ${ARG_SYMBOL}"
    VERBATIM)
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()
