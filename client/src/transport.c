/* transport: plain sockets, and the stamped reads both transports use. */
#include "transport.h"

#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "monotonic.h"

static int plain_handshake(struct transport *t)
{
    (void)t;
    return 0;
}

int transport_socket_stamp(int fd)
{
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

/* recvmsg with room for the SO_TIMESTAMPNS message, which TCP gives for the
 * last segment the read took. */
ssize_t transport_recv_stamped(int fd, void *buf, size_t len, uint64_t *received_ns)
{
    union {
        char buf[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } control;
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
    ssize_t n = recvmsg(fd, &msg, 0);
    if (n <= 0) return n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(c), sizeof ts);
        *received_ns = timespec_ns(&ts);
    }
    return n;
}

static ssize_t plain_read(struct transport *t, uint8_t *buf, size_t len, uint64_t *received_ns)
{
    if (t->stamped) return transport_recv_stamped(t->fd, buf, len, received_ns);
    return recv(t->fd, buf, len, 0);
}

static ssize_t plain_write(struct transport *t, const uint8_t *buf, size_t len)
{
    return send(t->fd, buf, len, MSG_NOSIGNAL);
}

static void plain_close(struct transport *t)
{
    if (t->fd >= 0) close(t->fd);
    t->fd = -1;
}

static int plain_stamp_reads(struct transport *t)
{
    if (transport_socket_stamp(t->fd) < 0) return -1;
    t->stamped = true;
    return 0;
}

static const struct transport_ops plain_ops = {
    .handshake = plain_handshake,
    .read = plain_read,
    .write = plain_write,
    .close = plain_close,
    .stamp_reads = plain_stamp_reads,
};

void transport_plain_init(struct transport *t, int fd)
{
    t->ops = &plain_ops;
    t->fd = fd;
    t->stamped = false;
}

int transport_stamp_reads(struct transport *t)
{
    return t->ops->stamp_reads ? t->ops->stamp_reads(t) : -1;
}
