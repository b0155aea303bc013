/* thread.h - starting a helper thread on another CPU than its creator's.
 *
 * Linux puts a new thread on the CPU of the thread that creates it and leaves it there until
 * the load balancer moves it, a scheduler tick later.  A helper made to work beside its creator
 * - the pre-scan's helper, the reader's loaders, etldump's formatting workers - then waits
 * while its creator works on: on the 2-core VM of bench/README.md (session 12) such a thread
 * began 3.6-3.9 ms after pthread_create, and 0.15-0.27 ms when asked to start on the other CPU.
 * etl_thread_start asks for the other CPUs its creator may use for the thread's start, and the
 * thread's first act is to take back its creator's whole set, so that the scheduler may place
 * it anywhere afterwards.  Where its creator may use one CPU only, where the set cannot be read,
 * or off Linux, it is pthread_create. */
#ifndef ETL_THREAD_H
#define ETL_THREAD_H

#include <pthread.h>

#include "etl.h"

/* pthread_create(t, NULL, fn, arg), started on another CPU when there is one (above); 0 or
 * pthread_create's error. */
int etl_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* etl_thread_cpus, the CPUs the caller may use, is public: etl.h. */

#endif
