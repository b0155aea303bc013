/* thread.c - starting a helper thread on another CPU than its creator's (thread.h). */
#ifdef __linux__
#define _GNU_SOURCE /* sched_getcpu, CPU_* and the affinity calls of glibc and musl */
#endif
#include "thread.h"

#include <stdlib.h>
#include <unistd.h>

#ifdef __linux__
#include <sched.h>

typedef struct start {
    void *(*fn)(void *);
    void *arg;
    cpu_set_t all; /* the creator's CPUs */
} start;

/* The thread's start: its creator's CPUs back, then its own function. */
static void *trampoline(void *p)
{
    start s = *(start *)p;
    free(p);
    pthread_setaffinity_np(pthread_self(), sizeof s.all, &s.all); /* if refused, it stays where it is */
    return s.fn(s.arg);
}
#endif

int etl_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
#ifdef __linux__
    start *s = malloc(sizeof *s);
    int cpu = sched_getcpu();
    if (s && cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof s->all, &s->all) == 0) {
        cpu_set_t others = s->all;
        CPU_CLR(cpu, &others);
        pthread_attr_t at;
        if (CPU_COUNT(&others) > 0 && pthread_attr_init(&at) == 0) {
            s->fn = fn;
            s->arg = arg;
            int rc = pthread_attr_setaffinity_np(&at, sizeof others, &others);
            if (rc == 0)
                rc = pthread_create(t, &at, trampoline, s);
            pthread_attr_destroy(&at);
            if (rc == 0)
                return 0; /* s is the thread's now */
        }
    }
    free(s);
#endif
    return pthread_create(t, NULL, fn, arg);
}

unsigned etl_thread_cpus(void)
{
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}
