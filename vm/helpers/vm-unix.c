/*
 * vm-unix — a tiny Unix-socket client for the test VM (busybox nc has no -U
 * and the image has no python). Built static by vm/build-initramfs.sh.
 *
 *   vm-unix [-w SECONDS] [-s LINE] [-n LINES] [-t] [-p MS] PATH
 *
 * Connects to the Unix stream socket PATH (retrying for up to -w seconds,
 * default 10, while it does not exist or refuses), writes LINE and a newline
 * when -s is given, then copies what it receives to stdout, line by line,
 * until end of file or -n LINES lines. Prints "connected" on stderr once
 * connected. With -t every line is prefixed by the CLOCK_MONOTONIC time
 * it was received at ("SECONDS.NANOSECONDS "), for latency measurements.
 * stdout is flushed after every read, so a file it writes grows as lines come.
 * With -p MS it sleeps MS milliseconds before each read: a client that is
 * never waiting when a line arrives, so the sender's write wakes nobody (the
 * perf scenario's split of a socket write's cost into the copy and the wake-up).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
	double wait_s = 10;
	const char *send_line = NULL;
	long max_lines = -1, lines = 0;
	int stamp = 0, opt;
	long pause_ms = 0;
	while ((opt = getopt(argc, argv, "w:s:n:tp:")) != -1) {
		switch (opt) {
		case 'w': wait_s = atof(optarg); break;
		case 's': send_line = optarg; break;
		case 'n': max_lines = atol(optarg); break;
		case 't': stamp = 1; break;
		case 'p': pause_ms = atol(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1) {
	usage:
		fprintf(stderr, "usage: vm-unix [-w SECONDS] [-s LINE] [-n LINES] [-t] [-p MS] PATH\n");
		return 2;
	}
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (strlen(argv[optind]) >= sizeof addr.sun_path) { fprintf(stderr, "vm-unix: path too long\n"); return 2; }
	strcpy(addr.sun_path, argv[optind]);

	int fd = -1;
	for (long tries = (long)(wait_s * 20) + 1; tries > 0; tries--) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) { perror("vm-unix: socket"); return 1; }
		if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0) break;
		int e = errno;
		close(fd); fd = -1;
		if (e != ENOENT && e != ECONNREFUSED) { errno = e; perror("vm-unix: connect"); return 1; }
		usleep(50000);
	}
	if (fd < 0) { fprintf(stderr, "vm-unix: cannot connect to %s\n", argv[optind]); return 1; }
	fprintf(stderr, "connected\n");
	if (send_line) {
		size_t n = strlen(send_line);
		char *buf = malloc(n + 1);
		memcpy(buf, send_line, n); buf[n] = '\n';
		if (write(fd, buf, n + 1) != (ssize_t)(n + 1)) { perror("vm-unix: write"); return 1; }
		free(buf);
	}

	char buf[65536];
	int at_line_start = 1;
	for (;;) {
		if (pause_ms > 0) {
			struct timespec pause = { pause_ms / 1000, (pause_ms % 1000) * 1000000L };
			while (nanosleep(&pause, &pause) < 0 && errno == EINTR) {}
		}
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0) break;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (ssize_t i = 0; i < n; i++) {
			if (at_line_start && stamp) printf("%ld.%09ld ", (long)ts.tv_sec, ts.tv_nsec);
			putchar(buf[i]);
			at_line_start = buf[i] == '\n';
			if (at_line_start && max_lines >= 0 && ++lines >= max_lines) { fflush(stdout); return 0; }
		}
		fflush(stdout);
	}
	return 0;
}
