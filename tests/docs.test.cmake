# The documentation as people meet it: every shell example of README.md and
# docs/*.md runs as written on the bundled data (tests/docs/examples.sh says
# the rules), the man page's synopsis names exactly the options of each
# command's --help, and the DuckDB queries of docs/loading-ndjson.md give the
# figures the doc quotes (node 20 + tests/npm's DuckDB).
add_test(NAME docs_examples
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/docs/examples.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
# The man page's SYNOPSIS is generated from the option tables
# (scripts/gen-man-synopsis.sh); tests/cli_contract.sh checks it line by line
# against every command's --usage and --help.
# Registered unconditionally, like every test of the npm tools: node and
# tests/npm/node_modules are looked for when it runs (`make test` installs
# them first), and it fails without them.
add_test(NAME docs_loading_ndjson_duckdb
  COMMAND node ${CMAKE_SOURCE_DIR}/tests/docs/ndjson_duckdb.mjs ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
