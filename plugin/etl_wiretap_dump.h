/* etl_wiretap_dump.h - the .etl writer of the reader plugin (etl_wiretap_dump.c), hooked into
 * the file type etl_wiretap.c registers. */
#ifndef ETLSHARK_ETL_WIRETAP_DUMP_H
#define ETLSHARK_ETL_WIRETAP_DUMP_H

/* The encapsulation the reader registered: the only one written. */
void etls_dump_set_encap(int encap);
/* file_type_subtype_info.can_write_encap and .dump_open */
int etls_dump_can_write_encap(int encap);
etls_dump_open_ret etls_dump_open(wtap_dumper *wdh, int *err, char **err_info);

#endif
