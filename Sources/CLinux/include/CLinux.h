#ifndef EVROUTE_CLINUX_H
#define EVROUTE_CLINUX_H
// Linux system interfaces the daemon uses that Glibc's Swift module does not export
// (epoll, signalfd, timerfd, peer credentials), with their constants as plain values.
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>

static const unsigned int evroute_epollin = EPOLLIN;
static const unsigned int evroute_epollout = EPOLLOUT;
static const unsigned int evroute_epollerr = EPOLLERR;
static const unsigned int evroute_epollhup = EPOLLHUP;
static const unsigned int evroute_epollrdhup = EPOLLRDHUP;
static const unsigned int evroute_epollet = EPOLLET;

/// The data word of an epoll_event (the union does not import well, and the struct is packed).
static inline unsigned long long evroute_epoll_event_data(const struct epoll_event *ev) { return ev->data.u64; }
static inline void evroute_epoll_event_set_data(struct epoll_event *ev, unsigned long long data) { ev->data.u64 = data; }

// MARK: Plugins: child processes and non-blocking descriptors (GNU extensions Glibc's Swift
// module does not export).
#include <spawn.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
// Declared here in case the headers were read without _GNU_SOURCE (same prototypes as glibc's).
extern int pipe2(int pipefd[2], int flags);
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// getrandom(2) without flags: `count` bytes from the kernel's random pool (names nobody can predict).
static inline long evroute_getrandom(void *buffer, unsigned long count) { return syscall(SYS_getrandom, buffer, count, 0); }
/// O_PATH: a descriptor naming a directory (for openat/renameat/fstat), not opened for reading
/// (a GNU name: the generic Linux value where the headers were read without _GNU_SOURCE).
#ifdef O_PATH
static const int evroute_o_path = O_PATH;
#else
static const int evroute_o_path = 010000000;
#endif
/// pipe2(2): a pipe whose both ends get `flags` (O_CLOEXEC, O_NONBLOCK).
static inline int evroute_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }
/// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC, ignoring the peer address.
static inline int evroute_accept_nonblocking(int fd) { return accept4(fd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC); }
/// pidfd_open(2): a descriptor that becomes readable when `pid` exits (Linux 5.3+).
static inline int evroute_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }
/// Whether child `pid` has exited and waits to be reaped: waitid(2) with WNOWAIT leaves it a
/// zombie, so its pid — and the id of the process group it leads — cannot be reused yet.
#include <sys/wait.h>
static inline int evroute_child_exited(pid_t pid) {
    siginfo_t info;
    info.si_pid = 0;
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return 0;
    return info.si_pid == pid;
}
/// Closes every descriptor from `from` up in the spawned child (glibc 2.34+).
static inline int evroute_spawn_closefrom(posix_spawn_file_actions_t *fa, int from) {
    return posix_spawn_file_actions_addclosefrom_np(fa, from);
}

// MARK: Work off the loop (BackgroundJob): an eventfd the loop watches, a named worker thread.
#include <sys/eventfd.h>
#include <pthread.h>
extern int pthread_setname_np(pthread_t thread, const char *name);

/// eventfd(2), non-blocking and close-on-exec: a counter another thread adds to, which the
/// loop reads when it becomes readable.
static inline int evroute_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
/// Names the calling thread (at most 15 bytes are kept; `ps -L`, `top -H` and /proc show it).
static inline void evroute_name_this_thread(const char *name) {
    char shortName[16];
    int i = 0;
    for (; i < 15 && name[i]; i++) shortName[i] = name[i];
    shortName[i] = 0;
    (void)pthread_setname_np(pthread_self(), shortName);
}

/// malloc_trim(3): gives the free memory of every malloc arena back to the kernel (whole free
/// pages, not only the top of each heap). After a reload: the config's reader ran on its own
/// thread, in an arena of its own, whose freed pages would otherwise stay resident.
#include <malloc.h>
static inline int evroute_malloc_trim(void) { return malloc_trim(0); }

/// SO_PEERGROUPS (Linux 4.13+): the peer's supplementary groups, without reading /proc.
#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif
static const int evroute_so_peergroups = SO_PEERGROUPS;

// MARK: The journal's native protocol (docs/daemon.md, "The journal"): an entry too large for a
// datagram goes as a sealed memfd passed with SCM_RIGHTS in an otherwise empty datagram.
#include <string.h>
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif
/// memfd_create(2) with close-on-exec and sealing allowed; -1 with errno on failure.
static inline int evroute_memfd(const char *name) {
    return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}
/// Seals a memfd against any change (shrink, grow, write, more seals); -1 with errno on failure.
static inline int evroute_seal_memfd(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}
/// The seals of a memfd (F_GET_SEALS); -1 with errno on failure.
static inline int evroute_memfd_seals(int fd) { return fcntl(fd, F_GET_SEALS); }
static const int evroute_all_seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
/// Sends an empty datagram carrying descriptor `fd` (SCM_RIGHTS) on the connected socket `sock`;
/// returns sendmsg(2)'s result (-1 with errno).
static inline long evroute_send_descriptor(int sock, int fd, int flags) {
    union { char bytes[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    return (long)sendmsg(sock, &msg, flags);
}
/// Receives one datagram into `buffer` and the descriptor it carries, if any (`*fd`, else -1;
/// close-on-exec); returns recvmsg(2)'s result (-1 with errno).
static inline long evroute_receive_with_descriptor(int sock, void *buffer, unsigned long size, int *fd, int flags) {
    union { char bytes[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = { buffer, size };
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    *fd = -1;
    long n = (long)recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
    if (n < 0) return n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) memcpy(fd, CMSG_DATA(c), sizeof(int));
    }
    return n;
}

#endif
