/*
 * close-check: a preload for the unit-test run that turns a double close into a crash.
 *
 * A descriptor closed twice is a race in a process with threads: between the two calls another
 * thread may open something and get the same number, and the second close takes it from under
 * it (the symptom is an EBADF or a lost pipe in an unrelated test). The second close of a number
 * nobody reused fails with EBADF; this preload aborts there with a backtrace, so the bug shows
 * on every run instead of once in a while.
 *
 * Only the processes this repository builds are checked (the test bundle and the evroute
 * binary it starts): shells and other tools close numbers they never opened on purpose.
 * Built and preloaded by `make test-unit`.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int (*real_close)(int);
static int checked;

__attribute__((constructor)) static void close_check_init(void) {
    real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = 0;
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    checked = strstr(base, ".xctest") != NULL || strcmp(base, "evroute") == 0;
}

int close(int fd) {
    if (!real_close) real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    int result = real_close(fd);
    if (result != 0 && errno == EBADF && fd >= 0 && checked) {
        char line[96];
        int len = snprintf(line, sizeof line, "close-check: close(%d) of a descriptor not open (a double close)\n", fd);
        (void)!write(2, line, (size_t)len);
        void *frames[48];
        backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
        abort();
    }
    return result;
}
