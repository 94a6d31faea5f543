#ifndef CSWITCHBOARDSYS_H
#define CSWITCHBOARDSYS_H
// What Glibc, as imported by Swift, does not export: accept4, epoll, eventfd and a few constants.
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

/// epoll event bits (values from <sys/epoll.h>).
extern const uint32_t CSwitchboardSys_EPOLLIN;
extern const uint32_t CSwitchboardSys_EPOLLOUT;
extern const uint32_t CSwitchboardSys_EPOLLERR;
extern const uint32_t CSwitchboardSys_EPOLLHUP;
extern const uint32_t CSwitchboardSys_EPOLLRDHUP;
extern const uint32_t CSwitchboardSys_EPOLLET;

/// A flattened epoll_event: the 64-bit user data and the event bits.
typedef struct {
    uint32_t events;
    uint64_t data;
} CSwitchboardSys_event;

int CSwitchboardSys_epoll_create(void);
int CSwitchboardSys_epoll_add(int epfd, int fd, uint32_t events, uint64_t data);
int CSwitchboardSys_epoll_mod(int epfd, int fd, uint32_t events, uint64_t data);
int CSwitchboardSys_epoll_del(int epfd, int fd);
/// Waits for events; fills at most `max` entries of `out`. Returns the count or -1 (errno set).
int CSwitchboardSys_epoll_wait(int epfd, CSwitchboardSys_event *out, int max, int timeout_ms);

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int CSwitchboardSys_accept_nonblocking(int fd, struct sockaddr *addr, socklen_t *len);
/// A nonblocking, close-on-exec eventfd.
int CSwitchboardSys_eventfd(void);

int CSwitchboardSys_set_nodelay(int fd);
int CSwitchboardSys_set_reuseport(int fd);
extern const int CSwitchboardSys_MSG_NOSIGNAL;
/// glibc's M_ARENA_MAX (mallopt); returns 1 on success, 0 where it is not available.
int CSwitchboardSys_set_malloc_arenas(int arenas);
/// Bytes of the heap in use (glibc mallinfo2: uordblks, the chunks handed out from the arenas including their
/// headers, plus hblkhd, the chunks mmapped on their own); 0 where it is not available.
unsigned long long CSwitchboardSys_heap_in_use(void);
#endif
