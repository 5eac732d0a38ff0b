/* Script info: everything Core's ScriptToUniv prints about a scriptPubKey
 * from one solve (the solution, the address, the taproot key's validity),
 * for the JSON and table writers' hot paths.
 *
 * Layering (see script_internal.h): script info sits above the solver
 * (script.c), the x-only key check (xonly.c) and addresses (address.c), and
 * below descriptors (descriptor.c, which renders "desc" from a
 * bk_script_info) and JSON (src/json). It calls down only. */
#include "script_internal.h"

/* bk_script_info_get with the taproot decision supplied by the caller
 * (block JSON decides its keys in batches: bk_script_xonly_valid_many). */
bk_status bk_script_info_get_hint(const uint8_t *s, size_t n, bk_network net, int taproot_valid_hint,
                                  bk_script_info *info)
{
    const bk_network_params *p = bk_network_get(net);
    if (!p || !info) return BK_ERR_ARG;
    bk_script_solve(s, n, &info->sol);
    info->address_len = bk_script_address_encode(&info->sol, p, info->address);
    info->taproot_valid = 0;
    if (info->sol.type == BK_SCRIPT_WITNESS_V1_TAPROOT)
        info->taproot_valid = taproot_valid_hint >= 0 ? taproot_valid_hint != 0 : bk_script_xonly_valid(info->sol.data);
    return BK_OK;
}

bk_status bk_script_info_get(const uint8_t *s, size_t n, bk_network net, bk_script_info *info)
{
    return bk_script_info_get_hint(s, n, net, -1, info);
}
