/* Types the SSZ fuzz targets exercise (first input byte selects one). */
#ifndef BLOCKKIT_FUZZ_SSZ_TYPES_H
#define BLOCKKIT_FUZZ_SSZ_TYPES_H

static const char *const fuzz_ssz_types[] = {
    "Container:Attestation",
    "Union[None,uint16,List[uint8,8]]",
    "Container:ComplexTestStruct",
    "Container:BitsStruct",
    "List[ByteList[8],6]",
    "Vector[List[uint8,3],4]",
    "Bitlist[2048]",
    "Container:IndexedAttestation",
    "Container:UnionFieldStruct",
    "Container:Deposit",
    "List[uint64,1099511627776]",
    "Union[uint32,Container:SmallTestStruct]",
    "Container:ListOfVarContainers",
    "Container:VarOnlyStruct",
    "Bitvector[9]",
    "uint256",
    "Container:AttesterSlashing",
    "List[Container:VarTestStruct,4]",
    "List[Container:Checkpoint,64]",
    "Vector[Container:FixedTestStruct,5]",
    /* Progressive types (EIP-7916 / EIP-7495) and fork containers built on them. */
    "ProgressiveList[uint16]",
    "ProgressiveBitlist",
    "ProgressiveByteList[40]",
    "ProgressiveList[Container:VarTestStruct]",
    "List[ProgressiveList[uint8,5],4]",
    "heze:Attestation",
    "heze:IndexedAttestation",
    "gloas:ExecutionRequests",
};
#define FUZZ_SSZ_NTYPES (sizeof fuzz_ssz_types / sizeof fuzz_ssz_types[0])

#endif
