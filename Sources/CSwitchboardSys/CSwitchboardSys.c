#define _GNU_SOURCE
#include "CSwitchboardSys.h"
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

const uint32_t CSwitchboardSys_EPOLLIN = EPOLLIN;
const uint32_t CSwitchboardSys_EPOLLOUT = EPOLLOUT;
const uint32_t CSwitchboardSys_EPOLLERR = EPOLLERR;
const uint32_t CSwitchboardSys_EPOLLHUP = EPOLLHUP;
const uint32_t CSwitchboardSys_EPOLLRDHUP = EPOLLRDHUP;
const uint32_t CSwitchboardSys_EPOLLET = EPOLLET;
const int CSwitchboardSys_MSG_NOSIGNAL = MSG_NOSIGNAL;

int CSwitchboardSys_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int CSwitchboardSys_epoll_add(int epfd, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

int CSwitchboardSys_epoll_mod(int epfd, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev);
}

int CSwitchboardSys_epoll_del(int epfd, int fd) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &ev);
}

int CSwitchboardSys_epoll_wait(int epfd, CSwitchboardSys_event *out, int max, int timeout_ms) {
    struct epoll_event evs[256];
    if (max > 256) max = 256;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        out[i].events = evs[i].events;
        out[i].data = evs[i].data.u64;
    }
    return n;
}

int CSwitchboardSys_accept_nonblocking(int fd, struct sockaddr *addr, socklen_t *len) {
    return accept4(fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int CSwitchboardSys_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int CSwitchboardSys_set_nodelay(int fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int CSwitchboardSys_set_reuseport(int fd) {
    int one = 1;
    return setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
}

unsigned long long CSwitchboardSys_heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (unsigned long long)info.uordblks + (unsigned long long)info.hblkhd;
#else
    return 0;
#endif
}

int CSwitchboardSys_set_malloc_arenas(int arenas) {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    return mallopt(M_ARENA_MAX, arenas);
#else
    (void)arenas;
    return 0;
#endif
}
