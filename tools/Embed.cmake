# tt_embed(<target-source-var> SYMBOL <name> FILES <files...>): generate a .cpp holding the files.
function(tt_embed out_var)
  cmake_parse_arguments(ARG "" "SYMBOL" "FILES" ${ARGN})
  set(output "${CMAKE_CURRENT_BINARY_DIR}/embedded_${ARG_SYMBOL}.cpp")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} -DSYMBOL=${ARG_SYMBOL} -DOUTPUT=${output} "-DINPUTS=${ARG_FILES}"
            -P ${PROJECT_SOURCE_DIR}/tools/embed.cmake
    DEPENDS ${ARG_FILES} ${PROJECT_SOURCE_DIR}/tools/embed.cmake
    COMMENT "Embedding ${ARG_SYMBOL}")
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()
