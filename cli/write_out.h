/* write_out.h - etldump's --write mode (write_out.c): the selected records of a trace, and the
 * records decoding them needs, written as a new .etl. */
#ifndef ETLDUMP_WRITE_OUT_H
#define ETLDUMP_WRITE_OUT_H

#include <stdbool.h>

/* Is --write among the options (before any "--")? */
bool etldump_write_requested(int argc, char **argv);
/* The whole --write run, its own option parsing included; the exit status. */
int etldump_write_main(int argc, char **argv);

#endif
