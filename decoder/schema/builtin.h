/* builtin.h - schema documents built into the library, for providers whose traces often carry no
 * schema and whose manifest a user rarely has: the packet capture providers (pktmon, ndiscap;
 * decoder/schema/packet/packet-capture.man, embedded at build time by embed.cmake).
 *
 * The registry takes it as its lowest-precedence source (ETL_REGISTRY_BUILTIN, registry.h):
 * manifest files, stream manifests and carried schemas all win over it, so a trace that carries
 * pktmon's schema (in its own language) decodes with that one. */
#ifndef ETL_BUILTIN_H
#define ETL_BUILTIN_H

#include "etl.h"
#include "manifest.h"

extern const unsigned char etl_packet_capture_man[];
extern const size_t etl_packet_capture_man_len;

#define ETL_BUILTIN_PACKET_ORIGIN "built-in packet capture layouts (packet-capture.man)"

/* The built-in document as a manifest model (etl_manifest_free it). */
etl_status etl_builtin_packet_manifest(etl_manifest **out, etl_error *err);

#endif
