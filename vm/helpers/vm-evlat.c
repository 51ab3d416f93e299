/*
 * vm-evlat — the latency floor of the test VM: the smallest possible evdev
 * reader. Opens an evdev node, sets its clock to CLOCK_MONOTONIC
 * (EVIOCSCLOCKID, as evroute does), and for every SYN_REPORT it reads prints
 * the microseconds from the event's kernel timestamp to now (CLOCK_MONOTONIC),
 * one number per line. Built static by vm/build-initramfs.sh.
 *
 *   vm-evlat /dev/input/eventN >latency.us
 */
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc != 2) { fprintf(stderr, "usage: vm-evlat /dev/input/eventN\n"); return 2; }
	int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) { perror(argv[1]); return 1; }
	int clk = CLOCK_MONOTONIC;
	if (ioctl(fd, EVIOCSCLOCKID, &clk) < 0) { perror("EVIOCSCLOCKID"); return 1; }
	struct input_event ev[64];
	for (;;) {
		ssize_t n = read(fd, ev, sizeof ev);
		if (n <= 0) break;
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		for (size_t i = 0; i < (size_t)n / sizeof ev[0]; i++) {
			if (ev[i].type != EV_SYN || ev[i].code != SYN_REPORT) continue;
			long long us = ((long long)now.tv_sec - ev[i].input_event_sec) * 1000000LL +
				(now.tv_nsec / 1000 - (long long)ev[i].input_event_usec);
			printf("%lld\n", us);
		}
		fflush(stdout);
	}
	return 0;
}
