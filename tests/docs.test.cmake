# The documentation as people meet it: every shell example of README.md and
# docs/*.md runs as written on the bundled data (tests/docs/examples.sh says
# the rules), the man page's synopsis names exactly the options of each
# command's --help, and the DuckDB queries of docs/loading-ndjson.md give the
# figures the doc quotes (node 20 + tests/npm's DuckDB).
add_test(NAME docs_examples
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/docs/examples.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
add_test(NAME docs_man_synopsis
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/docs/man_synopsis.sh $<TARGET_FILE:blockkit> ${CMAKE_SOURCE_DIR}/docs/blockkit.1)
find_program(BK_NODE node)
if(BK_NODE)
  add_test(NAME docs_loading_ndjson_duckdb
    COMMAND ${BK_NODE} ${CMAKE_SOURCE_DIR}/tests/docs/ndjson_duckdb.mjs ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
endif()
