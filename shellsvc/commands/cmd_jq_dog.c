/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jq's watchdog. A jq program runs inside jq_next, which calls nothing of
 * the shell's while it computes (`def f: f; f`, `last(range(1e12))`), so
 * the shell's own stop checks never run. This thread watches the call
 * (its budget, an abort, a `kill` of the job) and the memory the process
 * holds, and halts the
 * program with jq_halt; libjq 1.6 checks for a halt before each
 * instruction, so jq_next returns soon after. What no instruction
 * boundary bounds (one C builtin working on a huge value, a regex that
 * backtracks) is left to the worker's limits: RLIMIT_AS, RLIMIT_CPU and
 * the broker's backstop, which kills the worker.
 *
 * jq_halt is called from this thread while jq_next runs on the
 * command's: libjq has no other way in. halted is a plain int that the
 * interpreter loop reads again before each instruction. The program's
 * own halt asserts that no halt came first: the thread halts only while
 * jq_next runs and jq_halted is false, which leaves a window of a few
 * instructions if the program itself halts in the same instant.
 */
#include <sys/resource.h>
#include <string.h>
#include <time.h>

#include "cmd_jq.h"

#define JQ_DOG_TICK_MS 20

/* The process's peak resident size in bytes: one cheap call (mallinfo2
 * would walk the free lists under the arena locks jq's own mallocs
 * need). A peak, so jq may grow to the process's earlier peak plus
 * JQ_HEAP_MAX before it is stopped; RLIMIT_AS stays the hard bound. */
static size_t
heap_used(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (size_t)ru.ru_maxrss * 1024u;
}

/* Whether the call must stop: what sh_check_stop reads, but only its
 * atomics and clock, which another thread may read. */
static bool
call_stopping(const sh_ctx *cx)
{
    sh_session *ss = cx->cx_ss;
    return atomic_load(&ss->ss_abort) ||
           (cx->cx_bg && atomic_load(&ss->ss_jobs_end)) ||
           (cx->cx_kill != NULL && atomic_load(cx->cx_kill) != 0) ||
           sh_budget_left_ms(ss) <= 0;
}

static void *
dog_main(void *arg)
{
    jq_dog *d = arg;
    pthread_mutex_lock(&d->jd_lock);
    while (!d->jd_done) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += JQ_DOG_TICK_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        (void)pthread_cond_timedwait(&d->jd_cv, &d->jd_lock, &ts);
        if (d->jd_done || !d->jd_in_next || d->jd_fired != JQ_DOG_NONE)
            continue;
        int why = JQ_DOG_NONE;
        if (call_stopping(d->jd_cx))
            why = JQ_DOG_STOP;
        else if (heap_used() > d->jd_heap0 + JQ_HEAP_MAX)
            why = JQ_DOG_MEMORY;
        if (why != JQ_DOG_NONE && !jq_halted(d->jd_jq)) {
            jq_halt(d->jd_jq, jv_invalid(), jv_invalid());
            d->jd_fired = why;
        }
    }
    pthread_mutex_unlock(&d->jd_lock);
    return NULL;
}

box_err
jq_dog_start(jq_dog *d, sh_ctx *cx, jq_state *jq)
{
    memset(d, 0, sizeof *d);
    d->jd_cx = cx;
    d->jd_jq = jq;
    d->jd_heap0 = heap_used();
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return BOX_ENOMEM;
    (void)pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int e = pthread_cond_init(&d->jd_cv, &ca);
    pthread_condattr_destroy(&ca);
    if (e != 0)
        return BOX_ENOMEM;
    if (pthread_mutex_init(&d->jd_lock, NULL) != 0) {
        pthread_cond_destroy(&d->jd_cv);
        return BOX_ENOMEM;
    }
    if (pthread_create(&d->jd_thread, NULL, dog_main, d) != 0) {
        pthread_mutex_destroy(&d->jd_lock);
        pthread_cond_destroy(&d->jd_cv);
        return BOX_EIO;
    }
    d->jd_started = true;
    return BOX_OK;
}

void
jq_dog_stop(jq_dog *d)
{
    if (!d->jd_started)
        return;
    pthread_mutex_lock(&d->jd_lock);
    d->jd_done = true;
    pthread_cond_signal(&d->jd_cv);
    pthread_mutex_unlock(&d->jd_lock);
    pthread_join(d->jd_thread, NULL);
    pthread_mutex_destroy(&d->jd_lock);
    pthread_cond_destroy(&d->jd_cv);
    d->jd_started = false;
}

jv
jq_dog_next(jq_dog *d, jq_state *jq)
{
    pthread_mutex_lock(&d->jd_lock);
    bool halted = d->jd_fired != JQ_DOG_NONE;
    d->jd_in_next = !halted;
    pthread_mutex_unlock(&d->jd_lock);
    if (halted)
        return jv_invalid();
    jv v = jq_next(jq);
    pthread_mutex_lock(&d->jd_lock);
    d->jd_in_next = false;
    pthread_mutex_unlock(&d->jd_lock);
    return v;
}

int
jq_dog_fired(jq_dog *d)
{
    pthread_mutex_lock(&d->jd_lock);
    int f = d->jd_fired;
    pthread_mutex_unlock(&d->jd_lock);
    return f;
}
