/*
 * vm-fwfloor — the floor of forwarding a touchscreen (92-evroute-forward-perf): a
 * forwarder with evroute's system-call pattern and none of its work. It grabs SOURCE,
 * makes a virtual device mirroring it with libevdev's uinput API (named "<source> (floor)"),
 * then per wake-up: one epoll_wait (edge-triggered, as evroute watches a device), one read
 * of everything pending (up to 64 events; a full read is followed by another), one write of
 * what was read to the virtual device. No decoding, routing or frame building: the events
 * go out as they came in. What it costs is what the kernel charges any forwarder that
 * reads whole frames and writes them whole; the rest of evroute's CPU is its own user space.
 * Stops on SIGTERM or SIGINT (the kernel removes the virtual device with its descriptor).
 * Built static by vm/build-initramfs.sh, with the flags on the next line.
 *
 * cflags: -I/usr/include/libevdev-1.0 -levdev
 *
 *   vm-fwfloor SOURCE
 */
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc != 2) { fprintf(stderr, "usage: vm-fwfloor SOURCE\n"); return 2; }
	int src = open(argv[1], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (src < 0) { perror(argv[1]); return 1; }
	struct libevdev *dev = NULL;
	int rc = libevdev_new_from_fd(src, &dev);
	if (rc < 0) { fprintf(stderr, "libevdev_new_from_fd: %s\n", strerror(-rc)); return 1; }
	if (ioctl(src, EVIOCGRAB, (void *)1) < 0) { perror("EVIOCGRAB"); return 1; }
	char name[128];
	snprintf(name, sizeof name, "%.70s (floor)", libevdev_get_name(dev));
	libevdev_set_name(dev, name);
	struct libevdev_uinput *ui = NULL;
	rc = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &ui);
	if (rc < 0) { fprintf(stderr, "libevdev_uinput_create_from_device: %s\n", strerror(-rc)); return 1; }
	int out = libevdev_uinput_get_fd(ui);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event watch = { .events = EPOLLIN | EPOLLET, .data.fd = src };
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, src, &watch) < 0) { perror("epoll"); return 1; }
	struct input_event ev[64];
	for (;;) {
		struct epoll_event ready;
		if (epoll_wait(ep, &ready, 1, -1) < 0) {
			if (errno == EINTR) continue;
			perror("epoll_wait");
			return 1;
		}
		for (;;) {
			ssize_t n = read(src, ev, sizeof ev);
			if (n < 0 && errno == EINTR) continue;
			if (n < 0 && errno == EAGAIN) break;
			if (n <= 0) { fprintf(stderr, "%s: gone\n", argv[1]); return 0; }
			if (write(out, ev, (size_t)n) != n) { perror("write"); return 1; }
			if ((size_t)n < sizeof ev) break;
		}
	}
}
