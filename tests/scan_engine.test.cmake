# test_scan_engine (tests/test_scan_engine.c): the library's scan engine
# (blockkit/scan.h) over the regtest node's files, and the CLI's progress
# printer (tests/test_progress.c: cli/progress.c).
set_tests_properties(test_scan_engine PROPERTIES FIXTURES_REQUIRED regtest)
