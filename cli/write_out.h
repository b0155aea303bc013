/* write_out.h - etldump's --write mode (write_out.c): the selected records of a trace, and the
 * records decoding them needs, written as a new .etl. */
#ifndef ETLDUMP_WRITE_OUT_H
#define ETLDUMP_WRITE_OUT_H

#include "options.h"

/* The --write run of parsed options (o->write_path set); the exit status. */
int etldump_write_run(const etldump_options *o);

#endif
