/* bk_threads_start / bk_threads_join (base/threads.h). */
#include "threads.h"

#include <signal.h>

unsigned bk_threads_start(pthread_t *th, unsigned n, void *(*fn)(void *), void *args, size_t stride)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* inherited by the workers */
    unsigned started = 0;
    for (; started < n; started++)
        if (pthread_create(&th[started], NULL, fn, (char *)args + (size_t)started * stride) != 0) break;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return started;
}

void bk_threads_join(pthread_t *th, unsigned n)
{
    for (unsigned i = 0; i < n; i++) pthread_join(th[i], NULL);
}
