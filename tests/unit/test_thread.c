/* Unit tests of thread.c (etl_thread_start): the thread runs its function with its argument
 * and its result comes back through pthread_join; on Linux its function begins holding its
 * creator's whole CPU set (the set that kept it off its creator's CPU is gone by then, so that
 * the scheduler may move it); a creator pinned to one CPU still gets its thread, on that CPU;
 * etl_thread_cpus counts the CPUs the caller may use (1 when pinned), not the machine's.
 * Where the thread first ran is not checked: once its set is back, the scheduler may move it
 * before its function can ask (bench/README.md, session 12, has what the placement gains). */
#ifdef __linux__
#define _GNU_SOURCE
#include <sched.h>
#endif
#include <pthread.h>
#include <stdio.h>

#include "check.h"
#include "thread.h"

typedef struct seen {
    int arg;
    int first_cpu; /* where the function began */
#ifdef __linux__
    cpu_set_t set; /* the thread's CPUs as its function began */
#endif
} seen;

static void *record(void *p)
{
    seen *s = p;
    s->arg++;
#ifdef __linux__
    s->first_cpu = sched_getcpu();
    pthread_getaffinity_np(pthread_self(), sizeof s->set, &s->set);
#endif
    return &s->arg;
}

static void run_one(const char *what, int creator_cpu)
{
    seen s = {.arg = 41, .first_cpu = -1};
    pthread_t t;
    CHECK(etl_thread_start(&t, record, &s) == 0);
    void *ret = NULL;
    CHECK(pthread_join(t, &ret) == 0);
    CHECK(ret == &s.arg);
    CHECK_EQ_U(s.arg, 42);
#ifdef __linux__
    cpu_set_t mine;
    CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0);
    if (!CPU_EQUAL(&mine, &s.set))
        fprintf(stderr, "%s: the thread does not hold its creator's CPUs\n", what);
    CHECK(CPU_EQUAL(&mine, &s.set));
    if (CPU_COUNT(&mine) == 1)
        CHECK(s.first_cpu == creator_cpu);
#else
    (void)what;
    (void)creator_cpu;
#endif
}

int main(void)
{
#ifdef __linux__
    cpu_set_t all;
    CHECK(sched_getaffinity(0, sizeof all, &all) == 0);
    for (int i = 0; i < 5; i++)
        run_one("all CPUs", sched_getcpu());
    /* pinned to one CPU: no other to start on */
    int cpu = sched_getcpu();
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    run_one("one CPU", cpu);
    CHECK(etl_thread_cpus() == 1); /* what the thread may use, not what the machine has */
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
    CHECK(etl_thread_cpus() == (unsigned)CPU_COUNT(&all));
#else
    CHECK(etl_thread_cpus() >= 1);
    run_one("pthread_create", -1);
#endif
    CHECK_MAIN_END();
}
