/* builtin.c - the schema documents built into the library (builtin.h). */
#include "builtin.h"

etl_status etl_builtin_packet_manifest(etl_manifest **out, etl_error *err)
{
    return etl_manifest_parse((const char *)etl_packet_capture_man, etl_packet_capture_man_len,
                              ETL_BUILTIN_PACKET_ORIGIN, out, err);
}
