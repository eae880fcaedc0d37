/* tcp_floor.c: the kernel's floor for one blocking operation over TCP loopback, no SHMEM (build
 * with plain cc -O2). `bench/compare --ucx` prints it as the limit of its round-trip figures.
 *
 * Two processes joined by a loopback TCP connection (TCP_NODELAY), the shape of a blocking get
 * over UCX's TCP transport: a request of 41 bytes, and a reply of 21 + `size` bytes (UCX's header
 * and the data). Each figure is a whole round trip, in us:
 *   tcp_rtt           both sides spin on recv(MSG_DONTWAIT): the fastest a process can see a
 *                     message arrive
 *   tcp_rtt_epoll     both sides spin on epoll_wait with a zero timeout, then recv, which is how
 *                     a UCX worker is progressed over TCP
 *   tcp_rtt_blocking  both sides sleep in epoll_wait until the message is there (first size
 *                     only): the price of waking a sleeping thread for every message
 * Whatever a library does above the sockets, a blocking get or atomic over TCP takes at least
 * tcp_rtt; a put followed by a quiet too (the data one way, the acknowledgement back).
 */
#include "bench.h"
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define REQUEST 41
#define HEADER 21

enum wait_mode { SPIN = 0, EPOLL = 1, BLOCK = 2 };

/* A request: how the responder waits for the next one, and how long its reply is (0: exit). */
struct request {
    uint32_t next_mode;
    uint32_t reply;
};

struct peer {
    int fd, ep;
    enum wait_mode mode;
    char *buf;
};

static void die(const char *what) {
    perror(what);
    exit(1);
}

/* Receives exactly `len` bytes, waiting as `p->mode` says. */
static void receive(struct peer *p, char *into, size_t len) {
    size_t got = 0;
    while (got < len) {
        struct epoll_event ev;
        if (p->mode == EPOLL) {
            while (epoll_wait(p->ep, &ev, 1, 0) == 0)
                ;
        } else if (p->mode == BLOCK) {
            if (epoll_wait(p->ep, &ev, 1, -1) < 0 && errno != EINTR) die("tcp_floor: epoll_wait");
        }
        ssize_t n = recv(p->fd, into + got, len - got, MSG_DONTWAIT);
        if (n > 0) {
            got += (size_t)n;
        } else if (n == 0) {
            fprintf(stderr, "tcp_floor: the other process closed the connection\n");
            exit(1);
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            die("tcp_floor: recv");
        }
    }
}

static void transmit(struct peer *p, const char *from, size_t len) {
    size_t sent = 0;
    while (sent < len) {
        ssize_t n = send(p->fd, from + sent, len - sent, MSG_NOSIGNAL);
        if (n < 0 && errno != EINTR && errno != EAGAIN) die("tcp_floor: send");
        if (n > 0) sent += (size_t)n;
    }
}

static void respond(struct peer *p) {
    char req[REQUEST];
    for (;;) {
        receive(p, req, REQUEST);
        struct request r;
        memcpy(&r, req, sizeof r);
        if (r.reply == 0) return;
        p->mode = (enum wait_mode)r.next_mode;
        transmit(p, p->buf, r.reply);
    }
}

struct trip {
    struct peer *p;
    size_t reply;
};

static void op_trip(void *a) {
    struct trip *t = a;
    char req[REQUEST] = {0};
    struct request r = {(uint32_t)t->p->mode, (uint32_t)t->reply};
    memcpy(req, &r, sizeof r);
    transmit(t->p, req, REQUEST);
    receive(t->p, t->p->buf, t->reply);
}

static int connected(int fd) {
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) die("tcp_floor: TCP_NODELAY");
    return fd;
}

static void peer_init(struct peer *p, int fd, size_t max_reply) {
    p->fd = fd;
    p->mode = SPIN;
    p->buf = calloc(1, max_reply);
    p->ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    if (!p->buf || p->ep < 0 || epoll_ctl(p->ep, EPOLL_CTL_ADD, fd, &ev) != 0) die("tcp_floor: setup");
}

int main(int argc, char **argv) {
    struct bench_cfg c = bench_parse(argc, argv);
    size_t max_reply = HEADER + c.max_size;
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof addr;
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(listener, 1) != 0 || getsockname(listener, (struct sockaddr *)&addr, &alen) != 0)
        die("tcp_floor: listen on loopback");
    pid_t child = fork();
    if (child < 0) die("tcp_floor: fork");
    if (child == 0) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) die("tcp_floor: connect");
        struct peer p;
        peer_init(&p, connected(fd), max_reply);
        respond(&p);
        return 0;
    }
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) die("tcp_floor: accept");
    struct peer p;
    peer_init(&p, connected(fd), max_reply);

    double ns[BENCH_MAX_SAMPLES];
    static const struct {
        const char *figure;
        enum wait_mode mode;
    } kinds[] = {{"tcp_rtt", SPIN}, {"tcp_rtt_epoll", EPOLL}, {"tcp_rtt_blocking", BLOCK}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (size_t sz = bench_first_size(&c); sz; sz = bench_next_size(&c, sz)) {
            /* The mode travels in each request: the first one still finds the responder waiting
               the previous way, which the calibration's warm-up absorbs. */
            p.mode = kinds[k].mode;
            struct trip t = {&p, HEADER + sz};
            bench_measure(op_trip, &t, &c, ns);
            bench_report(kinds[k].figure, sz, "us", ns, c.batches, 0);
            if (kinds[k].mode == BLOCK) break; /* one size shows the wake-up */
        }
    }

    char stop[REQUEST] = {0};
    transmit(&p, stop, REQUEST);
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "tcp_floor: the responder failed\n");
        return 1;
    }
    return 0;
}
