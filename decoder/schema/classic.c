/* classic.c - keys of classic records (classic.h). */
#include "classic.h"

#include <string.h>

/* Group PROCESS's type 10 is the image load of the Image class (group 0x14). */
#define HOOK_IMAGE_LOAD 0x030Au
#define GROUP_IMAGE 0x14u

bool etl_classic_key_of(const etl_record *rec, etl_classic_key *key)
{
    memset(key, 0, sizeof *key);
    key->type = rec->opcode;
    key->version = rec->version;
    if (etl_record_is_kernel_group(rec)) {
        key->group = rec->group;
        unsigned group = rec->hook_id == HOOK_IMAGE_LOAD ? GROUP_IMAGE : rec->group;
        key->known = etl_kernel_group_guid(group, &key->cls);
        if (!key->known) {
            /* a stand-in GUID per unknown group: never a real class GUID (its variant bits are
             * the reserved "NCS" ones no generated GUID has) */
            key->cls.data1 = 0x000000FFu;
            key->cls.data2 = 0x0BAD;
            key->cls.data3 = 0x6701;
            key->cls.data4[7] = rec->group;
        }
        return true;
    }
    if (!etl_record_is_classic(rec) || !rec->has_provider)
        return false;
    key->cls = rec->provider;
    key->known = true;
    return true;
}
