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
# Every container of every fork (@lodestar/types, scripts/gen-ssz-fork-vectors.mjs):
# values, JSON and roots equal, the oracle's rejections rejected.
foreach(p mainnet minimal)
  add_test(NAME ssz_vectors_forks_${p}
    COMMAND ssz_vectors --preset ${p} ${BK_SSZ_DATA}/forks_${p}.jsonl.zst
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data)
endforeach()
# The generated fork tables match their source (@lodestar/types in tests/npm).
add_test(NAME ssz_forks_generated_current
  COMMAND node ${CMAKE_SOURCE_DIR}/scripts/gen-ssz-forks.mjs --check)
# Proofs through progressive types (scripts/gen-ssz-progressive-proofs.mjs).
add_test(NAME ssz_vectors_progressive_proofs
  COMMAND ssz_vectors ${BK_SSZ_DATA}/progressive_proofs.jsonl WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data)
# EIP-8016 CompatibleUnion (tests/data/ssz/compatible_union/gen-vectors.mjs,
# from @chainsafe/ssz): values, invalid serializations, illegal types, JSON,
# roots, single and multi proofs; and the committed vectors are current.
set(BK_SSZ_CU ${BK_SSZ_DATA}/compatible_union)
add_test(NAME ssz_vectors_compatible_union
  COMMAND ssz_vectors --schema ${BK_SSZ_CU}/types.json ${BK_SSZ_CU}/vectors.jsonl.zst
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data)
add_test(NAME ssz_compatible_union_vectors_current
  COMMAND node ${BK_SSZ_CU}/gen-vectors.mjs --check)
