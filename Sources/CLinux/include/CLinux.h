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

/// The data word of an epoll_event as a file descriptor (the union does not import well).
static inline int evroute_epoll_event_fd(const struct epoll_event *ev) { return ev->data.fd; }
static inline void evroute_epoll_event_set_fd(struct epoll_event *ev, int fd) { ev->data.fd = fd; }
#endif
