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

/* Two PolyMod steps at once (PolyMod is linear over GF(2)): the state's top
 * 10 bits select the combined generator multiple. */
static const uint64_t desc_gen10[1024] = {
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

static inline uint64_t polymod2(uint64_t c, unsigned v1, unsigned v2)
{
    return ((c & 0x3fffffffull) << 10) ^ ((uint64_t)v1 << 5) ^ v2 ^ desc_gen10[c >> 30];
}

/* Core groups characters by three: the three low-5-bit symbols, then one
 * symbol for their groups (cls = 9 g(a) + 3 g(b) + g(c)). */
static inline uint64_t polymod_triple(uint64_t c, unsigned a, unsigned b, unsigned d)
{
    c = polymod2(c, a & 31, b & 31);
    return polymod2(c, d & 31, (a >> 5) * 9 + (b >> 5) * 3 + (d >> 5));
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
    for (int j = 0; j < 4; j++) c = polymod2(c, 0, 0);
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
