/* Descriptor inference as Core's block JSON prints it:
 * InferDescriptor(script, DUMMY_SIGNING_PROVIDER)->ToString()
 * (src/script/descriptor.cpp InferScript, context TOP, no keys or scripts
 * known), plus DescriptorChecksum. */
#include "script_internal.h"

#include <string.h>

/* ---- DescriptorChecksum ---- */

/* Position of each ASCII character in Core's INPUT_CHARSET (three groups
 * of 32: digits, brackets and hex-ish letters first; see descriptor.cpp
 * DescriptorChecksum), -1 if absent. */
static const int8_t input_pos[128] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    94, 59, 92, 91, 28, 29, 50, 15, 10, 11, 17, 51, 14, 52, 53, 16,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 27, 54, 55, 56, 57, 58,
    26, 82, 83, 84, 85, 86, 87, 88, 89, 32, 33, 34, 35, 36, 37, 38,
    39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 12, 93, 13, 60, 61,
    90, 18, 19, 20, 21, 22, 23, 24, 25, 64, 65, 66, 67, 68, 69, 70,
    71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 30, 62, 31, 63, -1,
};

static const char checksum_charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

/* Core PolyMod's generator multiples, indexed by the top 5 bits (c >> 35). */
static const uint64_t desc_gen[32] = {
    0x0000000000u, 0xf5dee51989u, 0xa9fdca3312u, 0x5c232f2a9bu,
    0x1bab10e32du, 0xee75f5faa4u, 0xb256dad03fu, 0x47883fc9b6u,
    0x3706b1677au, 0xc2d8547ef3u, 0x9efb7b5468u, 0x6b259e4de1u,
    0x2cada18457u, 0xd973449ddeu, 0x85506bb745u, 0x708e8eaeccu,
    0x644d626ffdu, 0x9193877674u, 0xcdb0a85cefu, 0x386e4d4566u,
    0x7fe6728cd0u, 0x8a38979559u, 0xd61bb8bfc2u, 0x23c55da64bu,
    0x534bd30887u, 0xa69536110eu, 0xfab6193b95u, 0x0f68fc221cu,
    0x48e0c3ebaau, 0xbd3e26f223u, 0xe11d09d8b8u, 0x14c3ecc131u,
};

/* Four PolyMod steps at once (PolyMod is linear over GF(2)): the 20 bits
 * shifted out of the 40-bit state select the combined generator multiple,
 * split into two independent 10-bit lookups so the dependency chain per
 * four symbols is one load deep. desc_gen4_hi[x] = four zero-input steps
 * from state x << 30, desc_gen4_lo[x] the same from x << 20. */
static const uint64_t desc_gen4_hi[1024] = {
    0x0000000000u, 0x3310c37ee1u, 0x6621865ce2u, 0x5531452203u,
    0xc6539c1dc4u, 0xf5435f6325u, 0xa0721a4126u, 0x9362d93fc7u,
    0xcee5bcbb88u, 0xfdf57fc569u, 0xa8c43ae76au, 0x9bd4f9998bu,
    0x08b620a64cu, 0x3ba6e3d8adu, 0x6e97a6faaeu, 0x5d8765844fu,
    0xdfdbfdf230u, 0xeccb3e8cd1u, 0xb9fa7baed2u, 0x8aeab8d033u,
    0x198861eff4u, 0x2a98a29115u, 0x7fa9e7b316u, 0x4cb924cdf7u,
    0x113e4149b8u, 0x222e823759u, 0x771fc7155au, 0x440f046bbbu,
    0xd76ddd547cu, 0xe47d1e2a9du, 0xb14c5b089eu, 0x825c98767fu,
    0xd04eb50c1fu, 0xe35e7672feu, 0xb66f3350fdu, 0x857ff02e1cu,
    0x161d2911dbu, 0x250dea6f3au, 0x703caf4d39u, 0x432c6c33d8u,
    0x1eab09b797u, 0x2dbbcac976u, 0x788a8feb75u, 0x4b9a4c9594u,
    0xd8f895aa53u, 0xebe856d4b2u, 0xbed913f6b1u, 0x8dc9d08850u,
    0x0f9548fe2fu, 0x3c858b80ceu, 0x69b4cea2cdu, 0x5aa40ddc2cu,
    0xc9c6d4e3ebu, 0xfad6179d0au, 0xafe752bf09u, 0x9cf791c1e8u,
    0xc170f445a7u, 0xf260373b46u, 0xa751721945u, 0x9441b167a4u,
    0x0723685863u, 0x3433ab2682u, 0x6102ee0481u, 0x52122d7a60u,
    0xe89d6a1817u, 0xdb8da966f6u, 0x8ebcec44f5u, 0xbdac2f3a14u,
    0x2ecef605d3u, 0x1dde357b32u, 0x48ef705931u, 0x7bffb327d0u,
    0x2678d6a39fu, 0x156815dd7eu, 0x405950ff7du, 0x734993819cu,
    0xe02b4abe5bu, 0xd33b89c0bau, 0x860acce2b9u, 0xb51a0f9c58u,
    0x374697ea27u, 0x04565494c6u, 0x516711b6c5u, 0x6277d2c824u,
    0xf1150bf7e3u, 0xc205c88902u, 0x97348dab01u, 0xa4244ed5e0u,
    0xf9a32b51afu, 0xcab3e82f4eu, 0x9f82ad0d4du, 0xac926e73acu,
    0x3ff0b74c6bu, 0x0ce074328au, 0x59d1311089u, 0x6ac1f26e68u,
    0x38d3df1408u, 0x0bc31c6ae9u, 0x5ef25948eau, 0x6de29a360bu,
    0xfe804309ccu, 0xcd9080772du, 0x98a1c5552eu, 0xabb1062bcfu,
    0xf63663af80u, 0xc526a0d161u, 0x9017e5f362u, 0xa307268d83u,
    0x3065ffb244u, 0x03753ccca5u, 0x564479eea6u, 0x6554ba9047u,
    0xe70822e638u, 0xd418e198d9u, 0x8129a4badau, 0xb23967c43bu,
    0x215bbefbfcu, 0x124b7d851du, 0x477a38a71eu, 0x746afbd9ffu,
    0x29ed9e5db0u, 0x1afd5d2351u, 0x4fcc180152u, 0x7cdcdb7fb3u,
    0xefbe024074u, 0xdcaec13e95u, 0x899f841c96u, 0xba8f476277u,
    0x993850b007u, 0xaa2893cee6u, 0xff19d6ece5u, 0xcc09159204u,
    0x5f6bccadc3u, 0x6c7b0fd322u, 0x394a4af121u, 0x0a5a898fc0u,
    0x57ddec0b8fu, 0x64cd2f756eu, 0x31fc6a576du, 0x02eca9298cu,
    0x918e70164bu, 0xa29eb368aau, 0xf7aff64aa9u, 0xc4bf353448u,
    0x46e3ad4237u, 0x75f36e3cd6u, 0x20c22b1ed5u, 0x13d2e86034u,
    0x80b0315ff3u, 0xb3a0f22112u, 0xe691b70311u, 0xd581747df0u,
    0x880611f9bfu, 0xbb16d2875eu, 0xee2797a55du, 0xdd3754dbbcu,
    0x4e558de47bu, 0x7d454e9a9au, 0x28740bb899u, 0x1b64c8c678u,
    0x4976e5bc18u, 0x7a6626c2f9u, 0x2f5763e0fau, 0x1c47a09e1bu,
    0x8f2579a1dcu, 0xbc35badf3du, 0xe904fffd3eu, 0xda143c83dfu,
    0x8793590790u, 0xb4839a7971u, 0xe1b2df5b72u, 0xd2a21c2593u,
    0x41c0c51a54u, 0x72d00664b5u, 0x27e14346b6u, 0x14f1803857u,
    0x96ad184e28u, 0xa5bddb30c9u, 0xf08c9e12cau, 0xc39c5d6c2bu,
    0x50fe8453ecu, 0x63ee472d0du, 0x36df020f0eu, 0x05cfc171efu,
    0x5848a4f5a0u, 0x6b58678b41u, 0x3e6922a942u, 0x0d79e1d7a3u,
    0x9e1b38e864u, 0xad0bfb9685u, 0xf83abeb486u, 0xcb2a7dca67u,
    0x71a53aa810u, 0x42b5f9d6f1u, 0x1784bcf4f2u, 0x24947f8a13u,
    0xb7f6a6b5d4u, 0x84e665cb35u, 0xd1d720e936u, 0xe2c7e397d7u,
    0xbf40861398u, 0x8c50456d79u, 0xd961004f7au, 0xea71c3319bu,
    0x79131a0e5cu, 0x4a03d970bdu, 0x1f329c52beu, 0x2c225f2c5fu,
    0xae7ec75a20u, 0x9d6e0424c1u, 0xc85f4106c2u, 0xfb4f827823u,
    0x682d5b47e4u, 0x5b3d983905u, 0x0e0cdd1b06u, 0x3d1c1e65e7u,
    0x609b7be1a8u, 0x538bb89f49u, 0x06bafdbd4au, 0x35aa3ec3abu,
    0xa6c8e7fc6cu, 0x95d824828du, 0xc0e961a08eu, 0xf3f9a2de6fu,
    0xa1eb8fa40fu, 0x92fb4cdaeeu, 0xc7ca09f8edu, 0xf4daca860cu,
    0x67b813b9cbu, 0x54a8d0c72au, 0x019995e529u, 0x3289569bc8u,
    0x6f0e331f87u, 0x5c1ef06166u, 0x092fb54365u, 0x3a3f763d84u,
    0xa95daf0243u, 0x9a4d6c7ca2u, 0xcf7c295ea1u, 0xfc6cea2040u,
    0x7e3072563fu, 0x4d20b128deu, 0x1811f40addu, 0x2b0137743cu,
    0xb863ee4bfbu, 0x8b732d351au, 0xde42681719u, 0xed52ab69f8u,
    0xb0d5ceedb7u, 0x83c50d9356u, 0xd6f448b155u, 0xe5e48bcfb4u,
    0x768652f073u, 0x4596918e92u, 0x10a7d4ac91u, 0x23b717d270u,
    0x7a22a1600eu, 0x4932621eefu, 0x1c03273cecu, 0x2f13e4420du,
    0xbc713d7dcau, 0x8f61fe032bu, 0xda50bb2128u, 0xe940785fc9u,
    0xb4c71ddb86u, 0x87d7dea567u, 0xd2e69b8764u, 0xe1f658f985u,
    0x729481c642u, 0x418442b8a3u, 0x14b5079aa0u, 0x27a5c4e441u,
    0xa5f95c923eu, 0x96e99fecdfu, 0xc3d8dacedcu, 0xf0c819b03du,
    0x63aac08ffau, 0x50ba03f11bu, 0x058b46d318u, 0x369b85adf9u,
    0x6b1ce029b6u, 0x580c235757u, 0x0d3d667554u, 0x3e2da50bb5u,
    0xad4f7c3472u, 0x9e5fbf4a93u, 0xcb6efa6890u, 0xf87e391671u,
    0xaa6c146c11u, 0x997cd712f0u, 0xcc4d9230f3u, 0xff5d514e12u,
    0x6c3f8871d5u, 0x5f2f4b0f34u, 0x0a1e0e2d37u, 0x390ecd53d6u,
    0x6489a8d799u, 0x57996ba978u, 0x02a82e8b7bu, 0x31b8edf59au,
    0xa2da34ca5du, 0x91caf7b4bcu, 0xc4fbb296bfu, 0xf7eb71e85eu,
    0x75b7e99e21u, 0x46a72ae0c0u, 0x13966fc2c3u, 0x2086acbc22u,
    0xb3e47583e5u, 0x80f4b6fd04u, 0xd5c5f3df07u, 0xe6d530a1e6u,
    0xbb525525a9u, 0x8842965b48u, 0xdd73d3794bu, 0xee631007aau,
    0x7d01c9386du, 0x4e110a468cu, 0x1b204f648fu, 0x28308c1a6eu,
    0x92bfcb7819u, 0xa1af0806f8u, 0xf49e4d24fbu, 0xc78e8e5a1au,
    0x54ec5765ddu, 0x67fc941b3cu, 0x32cdd1393fu, 0x01dd1247deu,
    0x5c5a77c391u, 0x6f4ab4bd70u, 0x3a7bf19f73u, 0x096b32e192u,
    0x9a09ebde55u, 0xa91928a0b4u, 0xfc286d82b7u, 0xcf38aefc56u,
    0x4d64368a29u, 0x7e74f5f4c8u, 0x2b45b0d6cbu, 0x185573a82au,
    0x8b37aa97edu, 0xb82769e90cu, 0xed162ccb0fu, 0xde06efb5eeu,
    0x83818a31a1u, 0xb091494f40u, 0xe5a00c6d43u, 0xd6b0cf13a2u,
    0x45d2162c65u, 0x76c2d55284u, 0x23f3907087u, 0x10e3530e66u,
    0x42f17e7406u, 0x71e1bd0ae7u, 0x24d0f828e4u, 0x17c03b5605u,
    0x84a2e269c2u, 0xb7b2211723u, 0xe283643520u, 0xd193a74bc1u,
    0x8c14c2cf8eu, 0xbf0401b16fu, 0xea3544936cu, 0xd92587ed8du,
    0x4a475ed24au, 0x79579dacabu, 0x2c66d88ea8u, 0x1f761bf049u,
    0x9d2a838636u, 0xae3a40f8d7u, 0xfb0b05dad4u, 0xc81bc6a435u,
    0x5b791f9bf2u, 0x6869dce513u, 0x3d5899c710u, 0x0e485ab9f1u,
    0x53cf3f3dbeu, 0x60dffc435fu, 0x35eeb9615cu, 0x06fe7a1fbdu,
    0x959ca3207au, 0xa68c605e9bu, 0xf3bd257c98u, 0xc0ade60279u,
    0xe31af1d009u, 0xd00a32aee8u, 0x853b778cebu, 0xb62bb4f20au,
    0x25496dcdcdu, 0x1659aeb32cu, 0x4368eb912fu, 0x707828efceu,
    0x2dff4d6b81u, 0x1eef8e1560u, 0x4bdecb3763u, 0x78ce084982u,
    0xebacd17645u, 0xd8bc1208a4u, 0x8d8d572aa7u, 0xbe9d945446u,
    0x3cc10c2239u, 0x0fd1cf5cd8u, 0x5ae08a7edbu, 0x69f049003au,
    0xfa92903ffdu, 0xc98253411cu, 0x9cb316631fu, 0xafa3d51dfeu,
    0xf224b099b1u, 0xc13473e750u, 0x940536c553u, 0xa715f5bbb2u,
    0x34772c8475u, 0x0767effa94u, 0x5256aad897u, 0x614669a676u,
    0x335444dc16u, 0x004487a2f7u, 0x5575c280f4u, 0x666501fe15u,
    0xf507d8c1d2u, 0xc6171bbf33u, 0x93265e9d30u, 0xa0369de3d1u,
    0xfdb1f8679eu, 0xcea13b197fu, 0x9b907e3b7cu, 0xa880bd459du,
    0x3be2647a5au, 0x08f2a704bbu, 0x5dc3e226b8u, 0x6ed3215859u,
    0xec8fb92e26u, 0xdf9f7a50c7u, 0x8aae3f72c4u, 0xb9befc0c25u,
    0x2adc2533e2u, 0x19cce64d03u, 0x4cfda36f00u, 0x7fed6011e1u,
    0x226a0595aeu, 0x117ac6eb4fu, 0x444b83c94cu, 0x775b40b7adu,
    0xe43999886au, 0xd7295af68bu, 0x82181fd488u, 0xb108dcaa69u,
    0x0b879bc81eu, 0x389758b6ffu, 0x6da61d94fcu, 0x5eb6deea1du,
    0xcdd407d5dau, 0xfec4c4ab3bu, 0xabf5818938u, 0x98e542f7d9u,
    0xc562277396u, 0xf672e40d77u, 0xa343a12f74u, 0x9053625195u,
    0x0331bb6e52u, 0x30217810b3u, 0x65103d32b0u, 0x5600fe4c51u,
    0xd45c663a2eu, 0xe74ca544cfu, 0xb27de066ccu, 0x816d23182du,
    0x120ffa27eau, 0x211f39590bu, 0x742e7c7b08u, 0x473ebf05e9u,
    0x1ab9da81a6u, 0x29a919ff47u, 0x7c985cdd44u, 0x4f889fa3a5u,
    0xdcea469c62u, 0xeffa85e283u, 0xbacbc0c080u, 0x89db03be61u,
    0xdbc92ec401u, 0xe8d9edbae0u, 0xbde8a898e3u, 0x8ef86be602u,
    0x1d9ab2d9c5u, 0x2e8a71a724u, 0x7bbb348527u, 0x48abf7fbc6u,
    0x152c927f89u, 0x263c510168u, 0x730d14236bu, 0x401dd75d8au,
    0xd37f0e624du, 0xe06fcd1cacu, 0xb55e883eafu, 0x864e4b404eu,
    0x0412d33631u, 0x37021048d0u, 0x6233556ad3u, 0x5123961432u,
    0xc2414f2bf5u, 0xf1518c5514u, 0xa460c97717u, 0x97700a09f6u,
    0xcaf76f8db9u, 0xf9e7acf358u, 0xacd6e9d15bu, 0x9fc62aafbau,
    0x0ca4f3907du, 0x3fb430ee9cu, 0x6a8575cc9fu, 0x5995b6b27eu,
    0xf41742641cu, 0xc707811afdu, 0x9236c438feu, 0xa12607461fu,
    0x3244de79d8u, 0x01541d0739u, 0x546558253au, 0x67759b5bdbu,
    0x3af2fedf94u, 0x09e23da175u, 0x5cd3788376u, 0x6fc3bbfd97u,
    0xfca162c250u, 0xcfb1a1bcb1u, 0x9a80e49eb2u, 0xa99027e053u,
    0x2bccbf962cu, 0x18dc7ce8cdu, 0x4ded39caceu, 0x7efdfab42fu,
    0xed9f238be8u, 0xde8fe0f509u, 0x8bbea5d70au, 0xb8ae66a9ebu,
    0xe529032da4u, 0xd639c05345u, 0x8308857146u, 0xb018460fa7u,
    0x237a9f3060u, 0x106a5c4e81u, 0x455b196c82u, 0x764bda1263u,
    0x2459f76803u, 0x17493416e2u, 0x42787134e1u, 0x7168b24a00u,
    0xe20a6b75c7u, 0xd11aa80b26u, 0x842bed2925u, 0xb73b2e57c4u,
    0xeabc4bd38bu, 0xd9ac88ad6au, 0x8c9dcd8f69u, 0xbf8d0ef188u,
    0x2cefd7ce4fu, 0x1fff14b0aeu, 0x4ace5192adu, 0x79de92ec4cu,
    0xfb820a9a33u, 0xc892c9e4d2u, 0x9da38cc6d1u, 0xaeb34fb830u,
    0x3dd19687f7u, 0x0ec155f916u, 0x5bf010db15u, 0x68e0d3a5f4u,
    0x3567b621bbu, 0x0677755f5au, 0x5346307d59u, 0x6056f303b8u,
    0xf3342a3c7fu, 0xc024e9429eu, 0x9515ac609du, 0xa6056f1e7cu,
    0x1c8a287c0bu, 0x2f9aeb02eau, 0x7aabae20e9u, 0x49bb6d5e08u,
    0xdad9b461cfu, 0xe9c9771f2eu, 0xbcf8323d2du, 0x8fe8f143ccu,
    0xd26f94c783u, 0xe17f57b962u, 0xb44e129b61u, 0x875ed1e580u,
    0x143c08da47u, 0x272ccba4a6u, 0x721d8e86a5u, 0x410d4df844u,
    0xc351d58e3bu, 0xf04116f0dau, 0xa57053d2d9u, 0x966090ac38u,
    0x05024993ffu, 0x36128aed1eu, 0x6323cfcf1du, 0x50330cb1fcu,
    0x0db46935b3u, 0x3ea4aa4b52u, 0x6b95ef6951u, 0x58852c17b0u,
    0xcbe7f52877u, 0xf8f7365696u, 0xadc6737495u, 0x9ed6b00a74u,
    0xccc49d7014u, 0xffd45e0ef5u, 0xaae51b2cf6u, 0x99f5d85217u,
    0x0a97016dd0u, 0x3987c21331u, 0x6cb6873132u, 0x5fa6444fd3u,
    0x022121cb9cu, 0x3131e2b57du, 0x6400a7977eu, 0x571064e99fu,
    0xc472bdd658u, 0xf7627ea8b9u, 0xa2533b8abau, 0x9143f8f45bu,
    0x131f608224u, 0x200fa3fcc5u, 0x753ee6dec6u, 0x462e25a027u,
    0xd54cfc9fe0u, 0xe65c3fe101u, 0xb36d7ac302u, 0x807db9bde3u,
    0xddfadc39acu, 0xeeea1f474du, 0xbbdb5a654eu, 0x88cb991bafu,
    0x1ba9402468u, 0x28b9835a89u, 0x7d88c6788au, 0x4e9805066bu,
    0x6d2f12d41bu, 0x5e3fd1aafau, 0x0b0e9488f9u, 0x381e57f618u,
    0xab7c8ec9dfu, 0x986c4db73eu, 0xcd5d08953du, 0xfe4dcbebdcu,
    0xa3caae6f93u, 0x90da6d1172u, 0xc5eb283371u, 0xf6fbeb4d90u,
    0x6599327257u, 0x5689f10cb6u, 0x03b8b42eb5u, 0x30a8775054u,
    0xb2f4ef262bu, 0x81e42c58cau, 0xd4d5697ac9u, 0xe7c5aa0428u,
    0x74a7733befu, 0x47b7b0450eu, 0x1286f5670du, 0x21963619ecu,
    0x7c11539da3u, 0x4f0190e342u, 0x1a30d5c141u, 0x292016bfa0u,
    0xba42cf8067u, 0x89520cfe86u, 0xdc6349dc85u, 0xef738aa264u,
    0xbd61a7d804u, 0x8e7164a6e5u, 0xdb402184e6u, 0xe850e2fa07u,
    0x7b323bc5c0u, 0x4822f8bb21u, 0x1d13bd9922u, 0x2e037ee7c3u,
    0x73841b638cu, 0x4094d81d6du, 0x15a59d3f6eu, 0x26b55e418fu,
    0xb5d7877e48u, 0x86c74400a9u, 0xd3f60122aau, 0xe0e6c25c4bu,
    0x62ba5a2a34u, 0x51aa9954d5u, 0x049bdc76d6u, 0x378b1f0837u,
    0xa4e9c637f0u, 0x97f9054911u, 0xc2c8406b12u, 0xf1d88315f3u,
    0xac5fe691bcu, 0x9f4f25ef5du, 0xca7e60cd5eu, 0xf96ea3b3bfu,
    0x6a0c7a8c78u, 0x591cb9f299u, 0x0c2dfcd09au, 0x3f3d3fae7bu,
    0x85b278cc0cu, 0xb6a2bbb2edu, 0xe393fe90eeu, 0xd0833dee0fu,
    0x43e1e4d1c8u, 0x70f127af29u, 0x25c0628d2au, 0x16d0a1f3cbu,
    0x4b57c47784u, 0x7847070965u, 0x2d76422b66u, 0x1e66815587u,
    0x8d04586a40u, 0xbe149b14a1u, 0xeb25de36a2u, 0xd8351d4843u,
    0x5a69853e3cu, 0x69794640ddu, 0x3c480362deu, 0x0f58c01c3fu,
    0x9c3a1923f8u, 0xaf2ada5d19u, 0xfa1b9f7f1au, 0xc90b5c01fbu,
    0x948c3985b4u, 0xa79cfafb55u, 0xf2adbfd956u, 0xc1bd7ca7b7u,
    0x52dfa59870u, 0x61cf66e691u, 0x34fe23c492u, 0x07eee0ba73u,
    0x55fccdc013u, 0x66ec0ebef2u, 0x33dd4b9cf1u, 0x00cd88e210u,
    0x93af51ddd7u, 0xa0bf92a336u, 0xf58ed78135u, 0xc69e14ffd4u,
    0x9b19717b9bu, 0xa809b2057au, 0xfd38f72779u, 0xce28345998u,
    0x5d4aed665fu, 0x6e5a2e18beu, 0x3b6b6b3abdu, 0x087ba8445cu,
    0x8a27303223u, 0xb937f34cc2u, 0xec06b66ec1u, 0xdf16751020u,
    0x4c74ac2fe7u, 0x7f646f5106u, 0x2a552a7305u, 0x1945e90de4u,
    0x44c28c89abu, 0x77d24ff74au, 0x22e30ad549u, 0x11f3c9aba8u,
    0x829110946fu, 0xb181d3ea8eu, 0xe4b096c88du, 0xd7a055b66cu,
    0x8e35e30412u, 0xbd25207af3u, 0xe8146558f0u, 0xdb04a62611u,
    0x48667f19d6u, 0x7b76bc6737u, 0x2e47f94534u, 0x1d573a3bd5u,
    0x40d05fbf9au, 0x73c09cc17bu, 0x26f1d9e378u, 0x15e11a9d99u,
    0x8683c3a25eu, 0xb59300dcbfu, 0xe0a245febcu, 0xd3b286805du,
    0x51ee1ef622u, 0x62fedd88c3u, 0x37cf98aac0u, 0x04df5bd421u,
    0x97bd82ebe6u, 0xa4ad419507u, 0xf19c04b704u, 0xc28cc7c9e5u,
    0x9f0ba24daau, 0xac1b61334bu, 0xf92a241148u, 0xca3ae76fa9u,
    0x59583e506eu, 0x6a48fd2e8fu, 0x3f79b80c8cu, 0x0c697b726du,
    0x5e7b56080du, 0x6d6b9576ecu, 0x385ad054efu, 0x0b4a132a0eu,
    0x9828ca15c9u, 0xab38096b28u, 0xfe094c492bu, 0xcd198f37cau,
    0x909eeab385u, 0xa38e29cd64u, 0xf6bf6cef67u, 0xc5afaf9186u,
    0x56cd76ae41u, 0x65ddb5d0a0u, 0x30ecf0f2a3u, 0x03fc338c42u,
    0x81a0abfa3du, 0xb2b06884dcu, 0xe7812da6dfu, 0xd491eed83eu,
    0x47f337e7f9u, 0x74e3f49918u, 0x21d2b1bb1bu, 0x12c272c5fau,
    0x4f451741b5u, 0x7c55d43f54u, 0x2964911d57u, 0x1a745263b6u,
    0x89168b5c71u, 0xba06482290u, 0xef370d0093u, 0xdc27ce7e72u,
    0x66a8891c05u, 0x55b84a62e4u, 0x00890f40e7u, 0x3399cc3e06u,
    0xa0fb1501c1u, 0x93ebd67f20u, 0xc6da935d23u, 0xf5ca5023c2u,
    0xa84d35a78du, 0x9b5df6d96cu, 0xce6cb3fb6fu, 0xfd7c70858eu,
    0x6e1ea9ba49u, 0x5d0e6ac4a8u, 0x083f2fe6abu, 0x3b2fec984au,
    0xb97374ee35u, 0x8a63b790d4u, 0xdf52f2b2d7u, 0xec4231cc36u,
    0x7f20e8f3f1u, 0x4c302b8d10u, 0x19016eaf13u, 0x2a11add1f2u,
    0x7796c855bdu, 0x44860b2b5cu, 0x11b74e095fu, 0x22a78d77beu,
    0xb1c5544879u, 0x82d5973698u, 0xd7e4d2149bu, 0xe4f4116a7au,
    0xb6e63c101au, 0x85f6ff6efbu, 0xd0c7ba4cf8u, 0xe3d7793219u,
    0x70b5a00ddeu, 0x43a563733fu, 0x169426513cu, 0x2584e52fddu,
    0x780380ab92u, 0x4b1343d573u, 0x1e2206f770u, 0x2d32c58991u,
    0xbe501cb656u, 0x8d40dfc8b7u, 0xd8719aeab4u, 0xeb61599455u,
    0x693dc1e22au, 0x5a2d029ccbu, 0x0f1c47bec8u, 0x3c0c84c029u,
    0xaf6e5dffeeu, 0x9c7e9e810fu, 0xc94fdba30cu, 0xfa5f18ddedu,
    0xa7d87d59a2u, 0x94c8be2743u, 0xc1f9fb0540u, 0xf2e9387ba1u,
    0x618be14466u, 0x529b223a87u, 0x07aa671884u, 0x34baa46665u,
    0x170db3b415u, 0x241d70caf4u, 0x712c35e8f7u, 0x423cf69616u,
    0xd15e2fa9d1u, 0xe24eecd730u, 0xb77fa9f533u, 0x846f6a8bd2u,
    0xd9e80f0f9du, 0xeaf8cc717cu, 0xbfc989537fu, 0x8cd94a2d9eu,
    0x1fbb931259u, 0x2cab506cb8u, 0x799a154ebbu, 0x4a8ad6305au,
    0xc8d64e4625u, 0xfbc68d38c4u, 0xaef7c81ac7u, 0x9de70b6426u,
    0x0e85d25be1u, 0x3d95112500u, 0x68a4540703u, 0x5bb49779e2u,
    0x0633f2fdadu, 0x352331834cu, 0x601274a14fu, 0x5302b7dfaeu,
    0xc0606ee069u, 0xf370ad9e88u, 0xa641e8bc8bu, 0x95512bc26au,
    0xc74306b80au, 0xf453c5c6ebu, 0xa16280e4e8u, 0x9272439a09u,
    0x01109aa5ceu, 0x320059db2fu, 0x67311cf92cu, 0x5421df87cdu,
    0x09a6ba0382u, 0x3ab6797d63u, 0x6f873c5f60u, 0x5c97ff2181u,
    0xcff5261e46u, 0xfce5e560a7u, 0xa9d4a042a4u, 0x9ac4633c45u,
    0x1898fb4a3au, 0x2b883834dbu, 0x7eb97d16d8u, 0x4da9be6839u,
    0xdecb6757feu, 0xeddba4291fu, 0xb8eae10b1cu, 0x8bfa2275fdu,
    0xd67d47f1b2u, 0xe56d848f53u, 0xb05cc1ad50u, 0x834c02d3b1u,
    0x102edbec76u, 0x233e189297u, 0x760f5db094u, 0x451f9ece75u,
    0xff90d9ac02u, 0xcc801ad2e3u, 0x99b15ff0e0u, 0xaaa19c8e01u,
    0x39c345b1c6u, 0x0ad386cf27u, 0x5fe2c3ed24u, 0x6cf20093c5u,
    0x317565178au, 0x0265a6696bu, 0x5754e34b68u, 0x6444203589u,
    0xf726f90a4eu, 0xc4363a74afu, 0x91077f56acu, 0xa217bc284du,
    0x204b245e32u, 0x135be720d3u, 0x466aa202d0u, 0x757a617c31u,
    0xe618b843f6u, 0xd5087b3d17u, 0x80393e1f14u, 0xb329fd61f5u,
    0xeeae98e5bau, 0xddbe5b9b5bu, 0x888f1eb958u, 0xbb9fddc7b9u,
    0x28fd04f87eu, 0x1bedc7869fu, 0x4edc82a49cu, 0x7dcc41da7du,
    0x2fde6ca01du, 0x1cceafdefcu, 0x49ffeafcffu, 0x7aef29821eu,
    0xe98df0bdd9u, 0xda9d33c338u, 0x8fac76e13bu, 0xbcbcb59fdau,
    0xe13bd01b95u, 0xd22b136574u, 0x871a564777u, 0xb40a953996u,
    0x27684c0651u, 0x14788f78b0u, 0x4149ca5ab3u, 0x7259092452u,
    0xf00591522du, 0xc315522cccu, 0x9624170ecfu, 0xa534d4702eu,
    0x36560d4fe9u, 0x0546ce3108u, 0x50778b130bu, 0x6367486deau,
    0x3ee02de9a5u, 0x0df0ee9744u, 0x58c1abb547u, 0x6bd168cba6u,
    0xf8b3b1f461u, 0xcba3728a80u, 0x9e9237a883u, 0xad82f4d662u,
};

static const uint64_t desc_gen4_lo[1024] = {
    0x0000000000u, 0xf5dee51989u, 0xa9fdca3312u, 0x5c232f2a9bu,
    0x1bab10e32du, 0xee75f5faa4u, 0xb256dad03fu, 0x47883fc9b6u,
    0x3706b1677au, 0xc2d8547ef3u, 0x9efb7b5468u, 0x6b259e4de1u,
    0x2cada18457u, 0xd973449ddeu, 0x85506bb745u, 0x708e8eaeccu,
    0x644d626ffdu, 0x9193877674u, 0xcdb0a85cefu, 0x386e4d4566u,
    0x7fe6728cd0u, 0x8a38979559u, 0xd61bb8bfc2u, 0x23c55da64bu,
    0x534bd30887u, 0xa69536110eu, 0xfab6193b95u, 0x0f68fc221cu,
    0x48e0c3ebaau, 0xbd3e26f223u, 0xe11d09d8b8u, 0x14c3ecc131u,
    0x5ac1aae998u, 0xaf1f4ff011u, 0xf33c60da8au, 0x06e285c303u,
    0x416aba0ab5u, 0xb4b45f133cu, 0xe8977039a7u, 0x1d4995202eu,
    0x6dc71b8ee2u, 0x9819fe976bu, 0xc43ad1bdf0u, 0x31e434a479u,
    0x766c0b6dcfu, 0x83b2ee7446u, 0xdf91c15eddu, 0x2a4f244754u,
    0x3e8cc88665u, 0xcb522d9fecu, 0x977102b577u, 0x62afe7acfeu,
    0x2527d86548u, 0xd0f93d7cc1u, 0x8cda12565au, 0x7904f74fd3u,
    0x098a79e11fu, 0xfc549cf896u, 0xa077b3d20du, 0x55a956cb84u,
    0x1221690232u, 0xe7ff8c1bbbu, 0xbbdca33120u, 0x4e024628a9u,
    0xb581d1f719u, 0x405f34ee90u, 0x1c7c1bc40bu, 0xe9a2fedd82u,
    0xae2ac11434u, 0x5bf4240dbdu, 0x07d70b2726u, 0xf209ee3eafu,
    0x8287609063u, 0x77598589eau, 0x2b7aaaa371u, 0xdea44fbaf8u,
    0x992c70734eu, 0x6cf2956ac7u, 0x30d1ba405cu, 0xc50f5f59d5u,
    0xd1ccb398e4u, 0x241256816du, 0x783179abf6u, 0x8def9cb27fu,
    0xca67a37bc9u, 0x3fb9466240u, 0x639a6948dbu, 0x96448c5152u,
    0xe6ca02ff9eu, 0x1314e7e617u, 0x4f37c8cc8cu, 0xbae92dd505u,
    0xfd61121cb3u, 0x08bff7053au, 0x549cd82fa1u, 0xa1423d3628u,
    0xef407b1e81u, 0x1a9e9e0708u, 0x46bdb12d93u, 0xb36354341au,
    0xf4eb6bfdacu, 0x01358ee425u, 0x5d16a1cebeu, 0xa8c844d737u,
    0xd846ca79fbu, 0x2d982f6072u, 0x71bb004ae9u, 0x8465e55360u,
    0xc3edda9ad6u, 0x36333f835fu, 0x6a1010a9c4u, 0x9fcef5b04du,
    0x8b0d19717cu, 0x7ed3fc68f5u, 0x22f0d3426eu, 0xd72e365be7u,
    0x90a6099251u, 0x6578ec8bd8u, 0x395bc3a143u, 0xcc8526b8cau,
    0xbc0ba81606u, 0x49d54d0f8fu, 0x15f6622514u, 0xe028873c9du,
    0xa7a0b8f52bu, 0x527e5deca2u, 0x0e5d72c639u, 0xfb8397dfb0u,
    0x2941334f3bu, 0xdc9fd656b2u, 0x80bcf97c29u, 0x75621c65a0u,
    0x32ea23ac16u, 0xc734c6b59fu, 0x9b17e99f04u, 0x6ec90c868du,
    0x1e47822841u, 0xeb996731c8u, 0xb7ba481b53u, 0x4264ad02dau,
    0x05ec92cb6cu, 0xf03277d2e5u, 0xac1158f87eu, 0x59cfbde1f7u,
    0x4d0c5120c6u, 0xb8d2b4394fu, 0xe4f19b13d4u, 0x112f7e0a5du,
    0x56a741c3ebu, 0xa379a4da62u, 0xff5a8bf0f9u, 0x0a846ee970u,
    0x7a0ae047bcu, 0x8fd4055e35u, 0xd3f72a74aeu, 0x2629cf6d27u,
    0x61a1f0a491u, 0x947f15bd18u, 0xc85c3a9783u, 0x3d82df8e0au,
    0x738099a6a3u, 0x865e7cbf2au, 0xda7d5395b1u, 0x2fa3b68c38u,
    0x682b89458eu, 0x9df56c5c07u, 0xc1d643769cu, 0x3408a66f15u,
    0x448628c1d9u, 0xb158cdd850u, 0xed7be2f2cbu, 0x18a507eb42u,
    0x5f2d3822f4u, 0xaaf3dd3b7du, 0xf6d0f211e6u, 0x030e17086fu,
    0x17cdfbc95eu, 0xe2131ed0d7u, 0xbe3031fa4cu, 0x4beed4e3c5u,
    0x0c66eb2a73u, 0xf9b80e33fau, 0xa59b211961u, 0x5045c400e8u,
    0x20cb4aae24u, 0xd515afb7adu, 0x8936809d36u, 0x7ce86584bfu,
    0x3b605a4d09u, 0xcebebf5480u, 0x929d907e1bu, 0x6743756792u,
    0x9cc0e2b822u, 0x691e07a1abu, 0x353d288b30u, 0xc0e3cd92b9u,
    0x876bf25b0fu, 0x72b5174286u, 0x2e9638681du, 0xdb48dd7194u,
    0xabc653df58u, 0x5e18b6c6d1u, 0x023b99ec4au, 0xf7e57cf5c3u,
    0xb06d433c75u, 0x45b3a625fcu, 0x1990890f67u, 0xec4e6c16eeu,
    0xf88d80d7dfu, 0x0d5365ce56u, 0x51704ae4cdu, 0xa4aeaffd44u,
    0xe3269034f2u, 0x16f8752d7bu, 0x4adb5a07e0u, 0xbf05bf1e69u,
    0xcf8b31b0a5u, 0x3a55d4a92cu, 0x6676fb83b7u, 0x93a81e9a3eu,
    0xd420215388u, 0x21fec44a01u, 0x7dddeb609au, 0x88030e7913u,
    0xc6014851bau, 0x33dfad4833u, 0x6ffc8262a8u, 0x9a22677b21u,
    0xddaa58b297u, 0x2874bdab1eu, 0x7457928185u, 0x818977980cu,
    0xf107f936c0u, 0x04d91c2f49u, 0x58fa3305d2u, 0xad24d61c5bu,
    0xeaace9d5edu, 0x1f720ccc64u, 0x435123e6ffu, 0xb68fc6ff76u,
    0xa24c2a3e47u, 0x5792cf27ceu, 0x0bb1e00d55u, 0xfe6f0514dcu,
    0xb9e73add6au, 0x4c39dfc4e3u, 0x101af0ee78u, 0xe5c415f7f1u,
    0x954a9b593du, 0x60947e40b4u, 0x3cb7516a2fu, 0xc969b473a6u,
    0x8ee18bba10u, 0x7b3f6ea399u, 0x271c418902u, 0xd2c2a4908bu,
    0x5280f63f7fu, 0xa75e1326f6u, 0xfb7d3c0c6du, 0x0ea3d915e4u,
    0x492be6dc52u, 0xbcf503c5dbu, 0xe0d62cef40u, 0x1508c9f6c9u,
    0x6586475805u, 0x9058a2418cu, 0xcc7b8d6b17u, 0x39a568729eu,
    0x7e2d57bb28u, 0x8bf3b2a2a1u, 0xd7d09d883au, 0x220e7891b3u,
    0x36cd945082u, 0xc31371490bu, 0x9f305e6390u, 0x6aeebb7a19u,
    0x2d6684b3afu, 0xd8b861aa26u, 0x849b4e80bdu, 0x7145ab9934u,
    0x01cb2537f8u, 0xf415c02e71u, 0xa836ef04eau, 0x5de80a1d63u,
    0x1a6035d4d5u, 0xefbed0cd5cu, 0xb39dffe7c7u, 0x46431afe4eu,
    0x08415cd6e7u, 0xfd9fb9cf6eu, 0xa1bc96e5f5u, 0x546273fc7cu,
    0x13ea4c35cau, 0xe634a92c43u, 0xba178606d8u, 0x4fc9631f51u,
    0x3f47edb19du, 0xca9908a814u, 0x96ba27828fu, 0x6364c29b06u,
    0x24ecfd52b0u, 0xd132184b39u, 0x8d113761a2u, 0x78cfd2782bu,
    0x6c0c3eb91au, 0x99d2dba093u, 0xc5f1f48a08u, 0x302f119381u,
    0x77a72e5a37u, 0x8279cb43beu, 0xde5ae46925u, 0x2b840170acu,
    0x5b0a8fde60u, 0xaed46ac7e9u, 0xf2f745ed72u, 0x0729a0f4fbu,
    0x40a19f3d4du, 0xb57f7a24c4u, 0xe95c550e5fu, 0x1c82b017d6u,
    0xe70127c866u, 0x12dfc2d1efu, 0x4efcedfb74u, 0xbb2208e2fdu,
    0xfcaa372b4bu, 0x0974d232c2u, 0x5557fd1859u, 0xa0891801d0u,
    0xd00796af1cu, 0x25d973b695u, 0x79fa5c9c0eu, 0x8c24b98587u,
    0xcbac864c31u, 0x3e726355b8u, 0x62514c7f23u, 0x978fa966aau,
    0x834c45a79bu, 0x7692a0be12u, 0x2ab18f9489u, 0xdf6f6a8d00u,
    0x98e75544b6u, 0x6d39b05d3fu, 0x311a9f77a4u, 0xc4c47a6e2du,
    0xb44af4c0e1u, 0x419411d968u, 0x1db73ef3f3u, 0xe869dbea7au,
    0xafe1e423ccu, 0x5a3f013a45u, 0x061c2e10deu, 0xf3c2cb0957u,
    0xbdc08d21feu, 0x481e683877u, 0x143d4712ecu, 0xe1e3a20b65u,
    0xa66b9dc2d3u, 0x53b578db5au, 0x0f9657f1c1u, 0xfa48b2e848u,
    0x8ac63c4684u, 0x7f18d95f0du, 0x233bf67596u, 0xd6e5136c1fu,
    0x916d2ca5a9u, 0x64b3c9bc20u, 0x3890e696bbu, 0xcd4e038f32u,
    0xd98def4e03u, 0x2c530a578au, 0x7070257d11u, 0x85aec06498u,
    0xc226ffad2eu, 0x37f81ab4a7u, 0x6bdb359e3cu, 0x9e05d087b5u,
    0xee8b5e2979u, 0x1b55bb30f0u, 0x4776941a6bu, 0xb2a87103e2u,
    0xf5204eca54u, 0x00feabd3ddu, 0x5cdd84f946u, 0xa90361e0cfu,
    0x7bc1c57044u, 0x8e1f2069cdu, 0xd23c0f4356u, 0x27e2ea5adfu,
    0x606ad59369u, 0x95b4308ae0u, 0xc9971fa07bu, 0x3c49fab9f2u,
    0x4cc774173eu, 0xb919910eb7u, 0xe53abe242cu, 0x10e45b3da5u,
    0x576c64f413u, 0xa2b281ed9au, 0xfe91aec701u, 0x0b4f4bde88u,
    0x1f8ca71fb9u, 0xea52420630u, 0xb6716d2cabu, 0x43af883522u,
    0x0427b7fc94u, 0xf1f952e51du, 0xadda7dcf86u, 0x580498d60fu,
    0x288a1678c3u, 0xdd54f3614au, 0x8177dc4bd1u, 0x74a9395258u,
    0x3321069beeu, 0xc6ffe38267u, 0x9adccca8fcu, 0x6f0229b175u,
    0x21006f99dcu, 0xd4de8a8055u, 0x88fda5aaceu, 0x7d2340b347u,
    0x3aab7f7af1u, 0xcf759a6378u, 0x9356b549e3u, 0x668850506au,
    0x1606defea6u, 0xe3d83be72fu, 0xbffb14cdb4u, 0x4a25f1d43du,
    0x0dadce1d8bu, 0xf8732b0402u, 0xa450042e99u, 0x518ee13710u,
    0x454d0df621u, 0xb093e8efa8u, 0xecb0c7c533u, 0x196e22dcbau,
    0x5ee61d150cu, 0xab38f80c85u, 0xf71bd7261eu, 0x02c5323f97u,
    0x724bbc915bu, 0x87955988d2u, 0xdbb676a249u, 0x2e6893bbc0u,
    0x69e0ac7276u, 0x9c3e496bffu, 0xc01d664164u, 0x35c38358edu,
    0xce4014875du, 0x3b9ef19ed4u, 0x67bddeb44fu, 0x92633badc6u,
    0xd5eb046470u, 0x2035e17df9u, 0x7c16ce5762u, 0x89c82b4eebu,
    0xf946a5e027u, 0x0c9840f9aeu, 0x50bb6fd335u, 0xa5658acabcu,
    0xe2edb5030au, 0x1733501a83u, 0x4b107f3018u, 0xbece9a2991u,
    0xaa0d76e8a0u, 0x5fd393f129u, 0x03f0bcdbb2u, 0xf62e59c23bu,
    0xb1a6660b8du, 0x4478831204u, 0x185bac389fu, 0xed85492116u,
    0x9d0bc78fdau, 0x68d5229653u, 0x34f60dbcc8u, 0xc128e8a541u,
    0x86a0d76cf7u, 0x737e32757eu, 0x2f5d1d5fe5u, 0xda83f8466cu,
    0x9481be6ec5u, 0x615f5b774cu, 0x3d7c745dd7u, 0xc8a291445eu,
    0x8f2aae8de8u, 0x7af44b9461u, 0x26d764befau, 0xd30981a773u,
    0xa3870f09bfu, 0x5659ea1036u, 0x0a7ac53aadu, 0xffa4202324u,
    0xb82c1fea92u, 0x4df2faf31bu, 0x11d1d5d980u, 0xe40f30c009u,
    0xf0ccdc0138u, 0x05123918b1u, 0x593116322au, 0xaceff32ba3u,
    0xeb67cce215u, 0x1eb929fb9cu, 0x429a06d107u, 0xb744e3c88eu,
    0xc7ca6d6642u, 0x3214887fcbu, 0x6e37a75550u, 0x9be9424cd9u,
    0xdc617d856fu, 0x29bf989ce6u, 0x759cb7b67du, 0x804252aff4u,
    0xa501ec7bf7u, 0x50df09627eu, 0x0cfc2648e5u, 0xf922c3516cu,
    0xbeaafc98dau, 0x4b74198153u, 0x175736abc8u, 0xe289d3b241u,
    0x92075d1c8du, 0x67d9b80504u, 0x3bfa972f9fu, 0xce24723616u,
    0x89ac4dffa0u, 0x7c72a8e629u, 0x205187ccb2u, 0xd58f62d53bu,
    0xc14c8e140au, 0x34926b0d83u, 0x68b1442718u, 0x9d6fa13e91u,
    0xdae79ef727u, 0x2f397beeaeu, 0x731a54c435u, 0x86c4b1ddbcu,
    0xf64a3f7370u, 0x0394da6af9u, 0x5fb7f54062u, 0xaa691059ebu,
    0xede12f905du, 0x183fca89d4u, 0x441ce5a34fu, 0xb1c200bac6u,
    0xffc046926fu, 0x0a1ea38be6u, 0x563d8ca17du, 0xa3e369b8f4u,
    0xe46b567142u, 0x11b5b368cbu, 0x4d969c4250u, 0xb848795bd9u,
    0xc8c6f7f515u, 0x3d1812ec9cu, 0x613b3dc607u, 0x94e5d8df8eu,
    0xd36de71638u, 0x26b3020fb1u, 0x7a902d252au, 0x8f4ec83ca3u,
    0x9b8d24fd92u, 0x6e53c1e41bu, 0x3270eece80u, 0xc7ae0bd709u,
    0x8026341ebfu, 0x75f8d10736u, 0x29dbfe2dadu, 0xdc051b3424u,
    0xac8b959ae8u, 0x5955708361u, 0x05765fa9fau, 0xf0a8bab073u,
    0xb7208579c5u, 0x42fe60604cu, 0x1edd4f4ad7u, 0xeb03aa535eu,
    0x10803d8ceeu, 0xe55ed89567u, 0xb97df7bffcu, 0x4ca312a675u,
    0x0b2b2d6fc3u, 0xfef5c8764au, 0xa2d6e75cd1u, 0x5708024558u,
    0x27868ceb94u, 0xd25869f21du, 0x8e7b46d886u, 0x7ba5a3c10fu,
    0x3c2d9c08b9u, 0xc9f3791130u, 0x95d0563babu, 0x600eb32222u,
    0x74cd5fe313u, 0x8113bafa9au, 0xdd3095d001u, 0x28ee70c988u,
    0x6f664f003eu, 0x9ab8aa19b7u, 0xc69b85332cu, 0x3345602aa5u,
    0x43cbee8469u, 0xb6150b9de0u, 0xea3624b77bu, 0x1fe8c1aef2u,
    0x5860fe6744u, 0xadbe1b7ecdu, 0xf19d345456u, 0x0443d14ddfu,
    0x4a41976576u, 0xbf9f727cffu, 0xe3bc5d5664u, 0x1662b84fedu,
    0x51ea87865bu, 0xa434629fd2u, 0xf8174db549u, 0x0dc9a8acc0u,
    0x7d4726020cu, 0x8899c31b85u, 0xd4baec311eu, 0x2164092897u,
    0x66ec36e121u, 0x9332d3f8a8u, 0xcf11fcd233u, 0x3acf19cbbau,
    0x2e0cf50a8bu, 0xdbd2101302u, 0x87f13f3999u, 0x722fda2010u,
    0x35a7e5e9a6u, 0xc07900f02fu, 0x9c5a2fdab4u, 0x6984cac33du,
    0x190a446df1u, 0xecd4a17478u, 0xb0f78e5ee3u, 0x45296b476au,
    0x02a1548edcu, 0xf77fb19755u, 0xab5c9ebdceu, 0x5e827ba447u,
    0x8c40df34ccu, 0x799e3a2d45u, 0x25bd1507deu, 0xd063f01e57u,
    0x97ebcfd7e1u, 0x62352ace68u, 0x3e1605e4f3u, 0xcbc8e0fd7au,
    0xbb466e53b6u, 0x4e988b4a3fu, 0x12bba460a4u, 0xe76541792du,
    0xa0ed7eb09bu, 0x55339ba912u, 0x0910b48389u, 0xfcce519a00u,
    0xe80dbd5b31u, 0x1dd35842b8u, 0x41f0776823u, 0xb42e9271aau,
    0xf3a6adb81cu, 0x067848a195u, 0x5a5b678b0eu, 0xaf85829287u,
    0xdf0b0c3c4bu, 0x2ad5e925c2u, 0x76f6c60f59u, 0x83282316d0u,
    0xc4a01cdf66u, 0x317ef9c6efu, 0x6d5dd6ec74u, 0x988333f5fdu,
    0xd68175dd54u, 0x235f90c4ddu, 0x7f7cbfee46u, 0x8aa25af7cfu,
    0xcd2a653e79u, 0x38f48027f0u, 0x64d7af0d6bu, 0x91094a14e2u,
    0xe187c4ba2eu, 0x145921a3a7u, 0x487a0e893cu, 0xbda4eb90b5u,
    0xfa2cd45903u, 0x0ff231408au, 0x53d11e6a11u, 0xa60ffb7398u,
    0xb2cc17b2a9u, 0x4712f2ab20u, 0x1b31dd81bbu, 0xeeef389832u,
    0xa967075184u, 0x5cb9e2480du, 0x009acd6296u, 0xf544287b1fu,
    0x85caa6d5d3u, 0x701443cc5au, 0x2c376ce6c1u, 0xd9e989ff48u,
    0x9e61b636feu, 0x6bbf532f77u, 0x379c7c05ecu, 0xc242991c65u,
    0x39c10ec3d5u, 0xcc1febda5cu, 0x903cc4f0c7u, 0x65e221e94eu,
    0x226a1e20f8u, 0xd7b4fb3971u, 0x8b97d413eau, 0x7e49310a63u,
    0x0ec7bfa4afu, 0xfb195abd26u, 0xa73a7597bdu, 0x52e4908e34u,
    0x156caf4782u, 0xe0b24a5e0bu, 0xbc91657490u, 0x494f806d19u,
    0x5d8c6cac28u, 0xa85289b5a1u, 0xf471a69f3au, 0x01af4386b3u,
    0x46277c4f05u, 0xb3f999568cu, 0xefdab67c17u, 0x1a0453659eu,
    0x6a8addcb52u, 0x9f5438d2dbu, 0xc37717f840u, 0x36a9f2e1c9u,
    0x7121cd287fu, 0x84ff2831f6u, 0xd8dc071b6du, 0x2d02e202e4u,
    0x6300a42a4du, 0x96de4133c4u, 0xcafd6e195fu, 0x3f238b00d6u,
    0x78abb4c960u, 0x8d7551d0e9u, 0xd1567efa72u, 0x24889be3fbu,
    0x5406154d37u, 0xa1d8f054beu, 0xfdfbdf7e25u, 0x08253a67acu,
    0x4fad05ae1au, 0xba73e0b793u, 0xe650cf9d08u, 0x138e2a8481u,
    0x074dc645b0u, 0xf293235c39u, 0xaeb00c76a2u, 0x5b6ee96f2bu,
    0x1ce6d6a69du, 0xe93833bf14u, 0xb51b1c958fu, 0x40c5f98c06u,
    0x304b7722cau, 0xc595923b43u, 0x99b6bd11d8u, 0x6c68580851u,
    0x2be067c1e7u, 0xde3e82d86eu, 0x821dadf2f5u, 0x77c348eb7cu,
    0xf7811a4488u, 0x025fff5d01u, 0x5e7cd0779au, 0xaba2356e13u,
    0xec2a0aa7a5u, 0x19f4efbe2cu, 0x45d7c094b7u, 0xb009258d3eu,
    0xc087ab23f2u, 0x35594e3a7bu, 0x697a6110e0u, 0x9ca4840969u,
    0xdb2cbbc0dfu, 0x2ef25ed956u, 0x72d171f3cdu, 0x870f94ea44u,
    0x93cc782b75u, 0x66129d32fcu, 0x3a31b21867u, 0xcfef5701eeu,
    0x886768c858u, 0x7db98dd1d1u, 0x219aa2fb4au, 0xd44447e2c3u,
    0xa4cac94c0fu, 0x51142c5586u, 0x0d37037f1du, 0xf8e9e66694u,
    0xbf61d9af22u, 0x4abf3cb6abu, 0x169c139c30u, 0xe342f685b9u,
    0xad40b0ad10u, 0x589e55b499u, 0x04bd7a9e02u, 0xf1639f878bu,
    0xb6eba04e3du, 0x43354557b4u, 0x1f166a7d2fu, 0xeac88f64a6u,
    0x9a4601ca6au, 0x6f98e4d3e3u, 0x33bbcbf978u, 0xc6652ee0f1u,
    0x81ed112947u, 0x7433f430ceu, 0x2810db1a55u, 0xddce3e03dcu,
    0xc90dd2c2edu, 0x3cd337db64u, 0x60f018f1ffu, 0x952efde876u,
    0xd2a6c221c0u, 0x2778273849u, 0x7b5b0812d2u, 0x8e85ed0b5bu,
    0xfe0b63a597u, 0x0bd586bc1eu, 0x57f6a99685u, 0xa2284c8f0cu,
    0xe5a07346bau, 0x107e965f33u, 0x4c5db975a8u, 0xb9835c6c21u,
    0x4200cbb391u, 0xb7de2eaa18u, 0xebfd018083u, 0x1e23e4990au,
    0x59abdb50bcu, 0xac753e4935u, 0xf0561163aeu, 0x0588f47a27u,
    0x75067ad4ebu, 0x80d89fcd62u, 0xdcfbb0e7f9u, 0x292555fe70u,
    0x6ead6a37c6u, 0x9b738f2e4fu, 0xc750a004d4u, 0x328e451d5du,
    0x264da9dc6cu, 0xd3934cc5e5u, 0x8fb063ef7eu, 0x7a6e86f6f7u,
    0x3de6b93f41u, 0xc8385c26c8u, 0x941b730c53u, 0x61c59615dau,
    0x114b18bb16u, 0xe495fda29fu, 0xb8b6d28804u, 0x4d6837918du,
    0x0ae008583bu, 0xff3eed41b2u, 0xa31dc26b29u, 0x56c32772a0u,
    0x18c1615a09u, 0xed1f844380u, 0xb13cab691bu, 0x44e24e7092u,
    0x036a71b924u, 0xf6b494a0adu, 0xaa97bb8a36u, 0x5f495e93bfu,
    0x2fc7d03d73u, 0xda193524fau, 0x863a1a0e61u, 0x73e4ff17e8u,
    0x346cc0de5eu, 0xc1b225c7d7u, 0x9d910aed4cu, 0x684feff4c5u,
    0x7c8c0335f4u, 0x8952e62c7du, 0xd571c906e6u, 0x20af2c1f6fu,
    0x672713d6d9u, 0x92f9f6cf50u, 0xcedad9e5cbu, 0x3b043cfc42u,
    0x4b8ab2528eu, 0xbe54574b07u, 0xe27778619cu, 0x17a99d7815u,
    0x5021a2b1a3u, 0xa5ff47a82au, 0xf9dc6882b1u, 0x0c028d9b38u,
    0xdec0290bb3u, 0x2b1ecc123au, 0x773de338a1u, 0x82e3062128u,
    0xc56b39e89eu, 0x30b5dcf117u, 0x6c96f3db8cu, 0x994816c205u,
    0xe9c6986cc9u, 0x1c187d7540u, 0x403b525fdbu, 0xb5e5b74652u,
    0xf26d888fe4u, 0x07b36d966du, 0x5b9042bcf6u, 0xae4ea7a57fu,
    0xba8d4b644eu, 0x4f53ae7dc7u, 0x137081575cu, 0xe6ae644ed5u,
    0xa1265b8763u, 0x54f8be9eeau, 0x08db91b471u, 0xfd0574adf8u,
    0x8d8bfa0334u, 0x78551f1abdu, 0x2476303026u, 0xd1a8d529afu,
    0x9620eae019u, 0x63fe0ff990u, 0x3fdd20d30bu, 0xca03c5ca82u,
    0x840183e22bu, 0x71df66fba2u, 0x2dfc49d139u, 0xd822acc8b0u,
    0x9faa930106u, 0x6a7476188fu, 0x3657593214u, 0xc389bc2b9du,
    0xb307328551u, 0x46d9d79cd8u, 0x1afaf8b643u, 0xef241dafcau,
    0xa8ac22667cu, 0x5d72c77ff5u, 0x0151e8556eu, 0xf48f0d4ce7u,
    0xe04ce18dd6u, 0x159204945fu, 0x49b12bbec4u, 0xbc6fcea74du,
    0xfbe7f16efbu, 0x0e39147772u, 0x521a3b5de9u, 0xa7c4de4460u,
    0xd74a50eaacu, 0x2294b5f325u, 0x7eb79ad9beu, 0x8b697fc037u,
    0xcce1400981u, 0x393fa51008u, 0x651c8a3a93u, 0x90c26f231au,
    0x6b41f8fcaau, 0x9e9f1de523u, 0xc2bc32cfb8u, 0x3762d7d631u,
    0x70eae81f87u, 0x85340d060eu, 0xd917222c95u, 0x2cc9c7351cu,
    0x5c47499bd0u, 0xa999ac8259u, 0xf5ba83a8c2u, 0x006466b14bu,
    0x47ec5978fdu, 0xb232bc6174u, 0xee11934befu, 0x1bcf765266u,
    0x0f0c9a9357u, 0xfad27f8adeu, 0xa6f150a045u, 0x532fb5b9ccu,
    0x14a78a707au, 0xe1796f69f3u, 0xbd5a404368u, 0x4884a55ae1u,
    0x380a2bf42du, 0xcdd4ceeda4u, 0x91f7e1c73fu, 0x642904deb6u,
    0x23a13b1700u, 0xd67fde0e89u, 0x8a5cf12412u, 0x7f82143d9bu,
    0x3180521532u, 0xc45eb70cbbu, 0x987d982620u, 0x6da37d3fa9u,
    0x2a2b42f61fu, 0xdff5a7ef96u, 0x83d688c50du, 0x76086ddc84u,
    0x0686e37248u, 0xf358066bc1u, 0xaf7b29415au, 0x5aa5cc58d3u,
    0x1d2df39165u, 0xe8f31688ecu, 0xb4d039a277u, 0x410edcbbfeu,
    0x55cd307acfu, 0xa013d56346u, 0xfc30fa49ddu, 0x09ee1f5054u,
    0x4e662099e2u, 0xbbb8c5806bu, 0xe79beaaaf0u, 0x12450fb379u,
    0x62cb811db5u, 0x971564043cu, 0xcb364b2ea7u, 0x3ee8ae372eu,
    0x796091fe98u, 0x8cbe74e711u, 0xd09d5bcd8au, 0x2543bed403u,
};

static inline uint64_t polymod(uint64_t c, unsigned val)
{
    return ((c & 0x7ffffffffull) << 5) ^ val ^ desc_gen[c >> 35];
}

/* Four steps with symbols v (v1 << 15 | v2 << 10 | v3 << 5 | v4). */
static inline uint64_t polymod4(uint64_t c, uint64_t v)
{
    return ((c & 0xfffffull) << 20) ^ v ^ desc_gen4_hi[c >> 30] ^ desc_gen4_lo[(c >> 20) & 1023];
}

/* Core groups characters by three: the three low-5-bit symbols, then one
 * symbol for their groups (cls = 9 g(a) + 3 g(b) + g(c)). */
static inline uint64_t polymod_triple(uint64_t c, unsigned a, unsigned b, unsigned d)
{
    uint64_t v = ((uint64_t)(a & 31) << 15) | ((b & 31) << 10) | ((d & 31) << 5) |
                 ((a >> 5) * 9 + (b >> 5) * 3 + (d >> 5));
    return polymod4(c, v);
}

typedef struct dchk {
    uint64_t c;
    unsigned pend;      /* characters waiting for their triple (0..2) */
    uint8_t pos[2];
} dchk;

static void chk_init(dchk *k)
{
    k->c = 1;
    k->pend = 0;
}

static inline int char_pos(char ch)
{
    unsigned char u = (unsigned char)ch;
    return u < 128 ? input_pos[u] : -1;
}

/* Feed characters; returns the index of the first character outside the
 * charset, or n when all are valid. */
static size_t chk_feed(dchk *k, const char *s, size_t n)
{
    size_t i = 0;
    uint64_t c = k->c;
    /* Complete a pending triple first. */
    while (k->pend && i < n) {
        int p = char_pos(s[i]);
        if (p < 0) goto bad;
        if (k->pend == 2) {
            c = polymod_triple(c, k->pos[0], k->pos[1], (unsigned)p);
            k->pend = 0;
        } else {
            k->pos[k->pend++] = (uint8_t)p;
        }
        i++;
    }
    for (; i + 3 <= n; i += 3) {
        int a = char_pos(s[i]), b = char_pos(s[i + 1]), d = char_pos(s[i + 2]);
        if ((a | b | d) < 0) {
            if (a >= 0) {
                k->pos[k->pend++] = (uint8_t)a;
                i++;
                if (b >= 0) {
                    k->pos[k->pend++] = (uint8_t)b;
                    i++;
                }
            }
            goto bad;
        }
        c = polymod_triple(c, (unsigned)a, (unsigned)b, (unsigned)d);
    }
    for (; i < n; i++) {
        int p = char_pos(s[i]);
        if (p < 0) goto bad;
        k->pos[k->pend++] = (uint8_t)p;
    }
    k->c = c;
    return n;
bad:
    k->c = c;
    return i;
}

static void chk_final(const dchk *k, char out[8])
{
    uint64_t c = k->c;
    if (k->pend) {
        unsigned cls = 0;
        for (unsigned j = 0; j < k->pend; j++) {
            c = polymod(c, k->pos[j] & 31u);
            cls = cls * 3 + (k->pos[j] >> 5);
        }
        c = polymod(c, cls);
    }
    c = polymod4(polymod4(c, 0), 0); /* eight zero symbols */
    c ^= 1;
    for (int j = 0; j < 8; j++) out[j] = checksum_charset[(c >> (5 * (7 - j))) & 31];
}

bk_status bk_descriptor_checksum(const char *desc, size_t len, char out[9], bk_error *err)
{
    if ((!desc && len) || !out) return bk_error_set(err, BK_ERR_ARG, 0, "invalid argument");
    dchk k;
    chk_init(&k);
    size_t bad = chk_feed(&k, desc, len);
    if (bad != len) {
        out[0] = 0;
        return bk_error_set(err, BK_ERR_INVALID, bad, "character 0x%02x is not in the descriptor charset",
                            (unsigned char)desc[bad]);
    }
    chk_final(&k, out);
    out[8] = 0;
    return BK_OK;
}

/* ---- InferDescriptor ---- */

static void emit(bk_writer *w, dchk *k, const char *s, size_t n)
{
    chk_feed(k, s, n);
    bk_writer_put(w, s, n);
}

static void emit_hex(bk_writer *w, dchk *k, const uint8_t *d, size_t n)
{
    if (n == 0) return;
    uint8_t *o = bk_script_space(w, 2 * n);
    if (!o) return;
    bk_script_hex((char *)o, d, n);
    chk_feed(k, (const char *)o, 2 * n);
    bk_writer_commit(w, 2 * n);
}

static void emit_checksum(bk_writer *w, const dchk *k)
{
    char buf[9];
    buf[0] = '#';
    chk_final(k, buf + 1);
    bk_writer_put(w, buf, 9);
}

/* Core: CPubKey::IsValidNonHybrid (size already checked by Solver). */
static int non_hybrid(const uint8_t *key)
{
    return key[0] == 2 || key[0] == 3 || key[0] == 4;
}

void bk_script_info_descriptor(bk_writer *w, const uint8_t *s, size_t n, const bk_script_info *info)
{
    const bk_script_solution *sol = &info->sol;
    dchk k;
    chk_init(&k);
    switch (sol->type) {
    case BK_SCRIPT_PUBKEY:
        /* Core: PUBKEY -> InferPubkey; hybrid keys fail and fall to raw(). */
        if (non_hybrid(sol->data)) {
            emit(w, &k, "pk(", 3);
            emit_hex(w, &k, sol->data, sol->data_len);
            emit(w, &k, ")", 1);
            emit_checksum(w, &k);
            return;
        }
        break;
    case BK_SCRIPT_MULTISIG: {
        /* Core: MULTISIG -> multi(m, keys...) when every key infers. */
        int ok = 1;
        for (unsigned i = 0; i < sol->n; i++)
            if (!non_hybrid(sol->keys[i])) ok = 0;
        if (!ok) break;
        char num[8];
        size_t nl = 0;
        if (sol->m >= 10) num[nl++] = (char)('0' + sol->m / 10);
        num[nl++] = (char)('0' + sol->m % 10);
        emit(w, &k, "multi(", 6);
        emit(w, &k, num, nl);
        for (unsigned i = 0; i < sol->n; i++) {
            emit(w, &k, ",", 1);
            emit_hex(w, &k, sol->keys[i], sol->key_len[i]);
        }
        emit(w, &k, ")", 1);
        emit_checksum(w, &k);
        return;
    }
    case BK_SCRIPT_WITNESS_V1_TAPROOT:
        /* Core: rawtr(x) when the x-only key is fully valid, else addr(). */
        if (info->taproot_valid) {
            emit(w, &k, "rawtr(", 6);
            emit_hex(w, &k, sol->data, 32);
            emit(w, &k, ")", 1);
            emit_checksum(w, &k);
            return;
        }
        break;
    default:
        break;
    }
    /* Core: ExtractDestination + round trip -> addr(); else raw(). The
     * round trip always holds for the types that have an address. */
    if (info->address_len) {
        emit(w, &k, "addr(", 5);
        emit(w, &k, info->address, info->address_len);
    } else {
        emit(w, &k, "raw(", 4);
        emit_hex(w, &k, s, n);
    }
    emit(w, &k, ")", 1);
    emit_checksum(w, &k);
}

bk_status bk_script_info_get(const uint8_t *s, size_t n, bk_network net, bk_script_info *info)
{
    const bk_network_params *p = bk_network_get(net);
    if (!p || !info) return BK_ERR_ARG;
    bk_script_solve(s, n, &info->sol);
    info->address_len = bk_script_address_encode(&info->sol, p, info->address);
    info->taproot_valid =
        info->sol.type == BK_SCRIPT_WITNESS_V1_TAPROOT && bk_script_xonly_valid(info->sol.data);
    return BK_OK;
}

bk_status bk_script_descriptor(bk_writer *w, const uint8_t *s, size_t n, bk_network net)
{
    bk_script_info info;
    bk_status st = bk_script_info_get(s, n, net, &info);
    if (st != BK_OK) return st;
    bk_script_info_descriptor(w, s, n, &info);
    return bk_writer_status(w);
}
