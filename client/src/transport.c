/* transport: plain sockets. */
#include "transport.h"

#include <sys/socket.h>
#include <unistd.h>

static int plain_handshake(struct transport *t)
{
    (void)t;
    return 0;
}

static ssize_t plain_read(struct transport *t, uint8_t *buf, size_t len)
{
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

static const struct transport_ops plain_ops = {
    .handshake = plain_handshake,
    .read = plain_read,
    .write = plain_write,
    .close = plain_close,
};

void transport_plain_init(struct transport *t, int fd)
{
    t->ops = &plain_ops;
    t->fd = fd;
}
