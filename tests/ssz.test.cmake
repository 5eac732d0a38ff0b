# SSZ: the vector runner over the official consensus-spec-tests and oracle
# vectors (zstd-compressed copies in tests/data/ssz, read through `zstd -dc`).
add_executable(ssz_vectors ${CMAKE_SOURCE_DIR}/tests/ssz_vectors.c)
target_include_directories(ssz_vectors PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(ssz_vectors PRIVATE blockkit_static)
set(BK_SSZ_DATA ${CMAKE_SOURCE_DIR}/tests/data/ssz)
foreach(f ssz_generic ssz_static_phase0 oracle_generic oracle_phase0 oracle_merkle oracle_proofs)
  add_test(NAME ssz_vectors_${f}
    COMMAND ssz_vectors --schema ${BK_SSZ_DATA}/types.json ${BK_SSZ_DATA}/${f}.jsonl.zst
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data)
endforeach()
