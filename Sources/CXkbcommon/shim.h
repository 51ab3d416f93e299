#ifndef EVROUTE_CXKBCOMMON_SHIM_H
#define EVROUTE_CXKBCOMMON_SHIM_H
/*
 * libxkbcommon (keymaps, key state, compose), for EvrouteInput's text: keys → text with a
 * device rule's keymap (layout, variant, options) and the locale's compose table.
 *
 * xkbcommon reports problems through a printf-style log function (a va_list), which Swift
 * cannot implement: evroute_xkb_capture_log installs one that formats each message into a
 * buffer the caller owns, so the keymap's loader can say why a layout did not compile.
 */
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-compose.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The messages xkbcommon logged since the last reset: the last one (cut at the buffer's
 * size, without its newline) and how many there were. */
struct evroute_xkb_log {
    char last[512];
    int count;
};

static inline void evroute_xkb_log_fn(struct xkb_context *context, enum xkb_log_level level,
                                      const char *format, va_list args) {
    (void)level;
    struct evroute_xkb_log *log = (struct evroute_xkb_log *)xkb_context_get_user_data(context);
    if (!log) return;
    vsnprintf(log->last, sizeof log->last, format, args);
    size_t n = strlen(log->last);
    while (n > 0 && (log->last[n - 1] == '\n' || log->last[n - 1] == ' ')) log->last[--n] = 0;
    log->count++;
}

/* Sends the context's messages (errors and warnings) into `log` instead of standard error. */
static inline void evroute_xkb_capture_log(struct xkb_context *context, struct evroute_xkb_log *log) {
    xkb_context_set_user_data(context, log);
    xkb_context_set_log_fn(context, evroute_xkb_log_fn);
    xkb_context_set_log_level(context, XKB_LOG_LEVEL_WARNING);
}

#endif
