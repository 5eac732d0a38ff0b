/* The one way the library starts worker threads (internal). */
#ifndef BK_BASE_THREADS_H
#define BK_BASE_THREADS_H

#include <pthread.h>
#include <stddef.h>

/* Start n threads, thread i running fn((char *)args + i * stride), each
 * with every signal blocked (a signal is then taken by the caller's
 * thread, whose handler sets the flag the workers poll). th[0..n). The
 * number started: the first failure ends the loop, and the caller runs
 * with those (or on its own thread when none). */
unsigned bk_threads_start(pthread_t *th, unsigned n, void *(*fn)(void *), void *args, size_t stride);
/* Join th[0..n). */
void bk_threads_join(pthread_t *th, unsigned n);

#endif
