#ifndef EVROUTE_CEVDEV_SHIM_H
#define EVROUTE_CEVDEV_SHIM_H
/*
 * Thin C helpers for what does not import into Swift: function-like ioctl
 * macros and the `input_event_sec`/`input_event_usec` field macros (which name
 * different fields on 32-bit arches with a 64-bit time_t).
 * Each ioctl helper returns the raw ioctl result (-1 with errno set on failure);
 * Swift calls them through its SystemCall choke point, which retries EINTR.
 */
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <sys/ioctl.h>
#include <time.h>

/* EVIOCGRAB: 1 takes the device exclusively, 0 releases it. EBUSY: grabbed elsewhere. */
static inline int evroute_ioctl_grab(int fd, int grab) {
    return ioctl(fd, EVIOCGRAB, (void *)(long)grab);
}

/* EVIOCSCLOCKID: the clock the kernel stamps this fd's events with. */
static inline int evroute_ioctl_set_clock(int fd, int clock_id) {
    return ioctl(fd, EVIOCSCLOCKID, &clock_id);
}

/* EVIOCSCLOCKID with CLOCK_MONOTONIC. */
static inline int evroute_ioctl_set_clock_monotonic(int fd) {
    return evroute_ioctl_set_clock(fd, CLOCK_MONOTONIC);
}

/* EVIOCGID: bus type, vendor, product, version. */
static inline int evroute_ioctl_get_id(int fd, struct input_id *id) {
    return ioctl(fd, EVIOCGID, id);
}

/* EVIOCGNAME: the kernel's device name into buffer (NUL-terminated on success). */
static inline int evroute_ioctl_get_name(int fd, char *buffer, unsigned int length) {
    return ioctl(fd, EVIOCGNAME(length), buffer);
}

/* EVIOCGVERSION: the evdev protocol version. */
static inline int evroute_ioctl_get_version(int fd, int *version) {
    return ioctl(fd, EVIOCGVERSION, version);
}

/* An event's seconds and microseconds, whatever the arch names the fields. */
static inline long long evroute_input_event_sec(const struct input_event *event) {
    return (long long)event->input_event_sec;
}
static inline long long evroute_input_event_usec(const struct input_event *event) {
    return (long long)event->input_event_usec;
}

/* Sets an event's time fields, whatever the arch names them. */
static inline void evroute_input_event_set_time(struct input_event *event, long long sec, long long usec) {
    event->input_event_sec = sec;
    event->input_event_usec = usec;
}

#endif
