/*
 * vm-fwlat — the latency a forwarder adds (90-evroute-perf): writes
 * N frames of one finger moving into the SOURCE evdev node (as evemu-play
 * does: injected through the node, so a grabbing forwarder still gets them),
 * one at a time, and after each waits for the forwarded frame on the
 * VIRTUAL node. Prints, per frame, the microseconds from just before the
 * source write (the source event's kernel timestamp is taken inside that
 * write) to the virtual frame's kernel timestamp (CLOCK_MONOTONIC, as
 * EVIOCSCLOCKID sets it). Frames are paced (PERIOD_US, default 10000: 100 Hz);
 * a frame that does not arrive within 1 s counts as lost (printed "lost").
 * Built static by vm/build-initramfs.sh.
 *
 *   vm-fwlat SOURCE VIRTUAL N [PERIOD_US] >latency.us
 */
#include <fcntl.h>
#include <linux/input.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

static int put(struct input_event *ev, int n, int type, int code, int value) {
	memset(&ev[n], 0, sizeof ev[n]);
	ev[n].type = type; ev[n].code = code; ev[n].value = value;
	return n + 1;
}

/* the next SYN_REPORT's kernel time on fd, in µs; -1 after a second without one */
static long long next_frame(int fd) {
	struct input_event ev[64];
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 1000) <= 0) return -1;
		ssize_t n = read(fd, ev, sizeof ev);
		if (n <= 0) return -1;
		for (size_t i = 0; i < (size_t)n / sizeof ev[0]; i++)
			if (ev[i].type == EV_SYN && ev[i].code == SYN_REPORT)
				return (long long)ev[i].input_event_sec * 1000000LL + ev[i].input_event_usec;
	}
}

int main(int argc, char **argv) {
	if (argc < 4) { fprintf(stderr, "usage: vm-fwlat SOURCE VIRTUAL N [PERIOD_US]\n"); return 2; }
	int n = atoi(argv[3]);
	long period = argc > 4 ? atol(argv[4]) : 10000;
	int src = open(argv[1], O_RDWR | O_CLOEXEC);
	if (src < 0) { perror(argv[1]); return 1; }
	int virt = open(argv[2], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (virt < 0) { perror(argv[2]); return 1; }
	int clk = CLOCK_MONOTONIC;
	if (ioctl(virt, EVIOCSCLOCKID, &clk) < 0) { perror("EVIOCSCLOCKID"); return 1; }
	struct input_absinfo ax, ay;
	if (ioctl(src, EVIOCGABS(ABS_MT_POSITION_X), &ax) < 0 || ioctl(src, EVIOCGABS(ABS_MT_POSITION_Y), &ay) < 0) {
		perror("EVIOCGABS (a protocol B source)"); return 1;
	}
	int w = ax.maximum - ax.minimum, h = ay.maximum - ay.minimum;
	/* a step well past any fuzz, so no frame is filtered away */
	int step = w / 100 > 2 * ax.fuzz + 2 ? w / 100 : 2 * ax.fuzz + 2;
	struct input_event ev[16];
	int lost = 0;
	for (int i = 0; i <= n; i++) {
		int x = ax.minimum + w / 4 + (i % 40) * step, y = ay.minimum + h / 2;
		int k = 0;
		if (i == 0) {
			k = put(ev, k, EV_ABS, ABS_MT_SLOT, 0);
			k = put(ev, k, EV_ABS, ABS_MT_TRACKING_ID, 4242);
		}
		k = put(ev, k, EV_ABS, ABS_MT_POSITION_X, x);
		k = put(ev, k, EV_ABS, ABS_MT_POSITION_Y, y);
		if (i == 0) k = put(ev, k, EV_KEY, BTN_TOUCH, 1);
		k = put(ev, k, EV_ABS, ABS_X, x);
		k = put(ev, k, EV_ABS, ABS_Y, y);
		k = put(ev, k, EV_SYN, SYN_REPORT, 0);
		long long t = now_us();
		if (write(src, ev, k * sizeof ev[0]) != (ssize_t)(k * sizeof ev[0])) { perror("write"); return 1; }
		long long got = next_frame(virt);
		if (got < 0) { printf("lost\n"); lost++; }
		else if (i > 0) printf("%lld\n", got - t);   /* the first frame (the down) warms up */
		fflush(stdout);
		usleep(period);
	}
	int k = 0;
	k = put(ev, k, EV_ABS, ABS_MT_TRACKING_ID, -1);
	k = put(ev, k, EV_KEY, BTN_TOUCH, 0);
	k = put(ev, k, EV_SYN, SYN_REPORT, 0);
	if (write(src, ev, k * sizeof ev[0]) < 0) perror("write");
	return lost > n / 10 ? 1 : 0;
}
