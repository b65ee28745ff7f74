// bench:ws's native client (bench/ws/nativePool.ts builds and drives it): `subscribers` WebSocket
// subscribers over TCP in one thread with epoll, each reading every frame it is sent. It does what
// bench/ws/subscriberWorker.ts does over node:net, at a fraction of the CPU: on a 2-core machine the client
// shares the cores with the server under test, and every cycle it spends is one the server does not get.
//
// Usage: wsclient <port> <path> <subscribe text> <subscribers> <record 0|1>
// Protocol, lines on stdin and stdout:
//   → "subscribed" once every subscriber has its first frame;
//   ← "drive"  → "driving": from now on price changes count;
//   → "seen <n>" every 5 ms while driving without recording (the fewest price changes any subscriber has);
//   ← "finish" → "receipts <n> <delivered> <held> <first> <last> <messageBytes> <roundP99Ms> <roundMaxMs>"
//      followed by n doubles (record times, the `timestamp` each price change carried) and n doubles (receipt
//      times), native byte order;
//   ← "close"  closes the sockets and exits.
// Times are milliseconds of CLOCK_MONOTONIC, the clock of the server's process.hrtime too.
// Frames: masked text out (mask key 0), unmasked in, no extensions, no fragmentation (neither server under
// test fragments). A price change is a text frame starting {"event_type":"price_change".

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  int fd;
  int upgraded;
  int subscribed;
  int closed;
  uint32_t count;
  char *buf; // bytes of a partial frame (or of the head) carried over from the previous read
  size_t len, cap;
} conn_t;

static const char PRICE_CHANGE[] = "{\"event_type\":\"price_change\"";
static const char TIMESTAMP[] = "\"timestamp\":\"";

static double mono_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void die(const char *what) {
  perror(what);
  exit(1);
}

static void write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      die("write");
    }
    c += w;
    n -= (size_t)w;
  }
}

static conn_t *conns;
static const char *subscribe_text;
static void send_text(int fd, const char *text);
static int nconns, nsubscribed, driving, record;
static double *ts, *at;
static size_t nrec, caprec;
static uint64_t delivered;
static double first = 1e300, last;
static size_t message_bytes;
// Time spent handling one epoll round's events (the client's own delay to a frame behind others), µs buckets.
static uint32_t rounds[100001];
static uint64_t nrounds;
static double round_max;

static void on_text(conn_t *c, const char *p, size_t n, double now) {
  if (!c->subscribed) {
    c->subscribed = 1;
    if (++nsubscribed == nconns) {
      printf("subscribed\n");
      fflush(stdout);
    }
    return;
  }
  if (!driving || n < sizeof PRICE_CHANGE - 1 || memcmp(p, PRICE_CHANGE, sizeof PRICE_CHANGE - 1) != 0) return;
  c->count++;
  delivered++;
  message_bytes = n;
  if (now < first) first = now;
  if (now > last) last = now;
  if (!record) return;
  const char *t = memmem(p, n, TIMESTAMP, sizeof TIMESTAMP - 1), *next;
  while (t != NULL && (next = memmem(t + 1, n - (size_t)(t + 1 - p), TIMESTAMP, sizeof TIMESTAMP - 1)) != NULL) t = next;
  if (t == NULL) return;
  if (nrec == caprec) {
    caprec = caprec ? caprec * 2 : 1 << 18;
    ts = realloc(ts, caprec * sizeof *ts);
    at = realloc(at, caprec * sizeof *at);
    if (ts == NULL || at == NULL) die("realloc");
  }
  ts[nrec] = strtod(t + sizeof TIMESTAMP - 1, NULL);
  at[nrec] = now;
  nrec++;
}

/** Handles the whole frames (and the 101 head) in data; returns how many bytes they took. */
static size_t parse(conn_t *c, const char *data, size_t len, double now) {
  size_t off = 0;
  if (!c->upgraded) {
    const char *end = memmem(data, len, "\r\n\r\n", 4);
    if (end == NULL) return 0;
    if (len < 12 || memcmp(data, "HTTP/1.1 101", 12) != 0) {
      fprintf(stderr, "upgrade refused: %.*s\n", (int)(end - data), data);
      exit(1);
    }
    c->upgraded = 1;
    send_text(c->fd, subscribe_text);
    off = (size_t)(end - data) + 4;
  }
  for (;;) {
    size_t avail = len - off;
    if (avail < 2) break;
    const unsigned char *b = (const unsigned char *)data + off;
    int opcode = b[0] & 0x0f;
    uint64_t n = b[1] & 0x7f;
    size_t h = 2;
    if (n == 126) {
      if (avail < 4) break;
      n = ((uint64_t)b[2] << 8) | b[3];
      h = 4;
    } else if (n == 127) {
      if (avail < 10) break;
      n = 0;
      for (int i = 0; i < 8; i++) n = (n << 8) | b[2 + i];
      h = 10;
    }
    if (avail < h + n) break;
    if (opcode == 1) on_text(c, (const char *)b + h, (size_t)n, now);
    else if (opcode == 8) c->closed = 1;
    off += h + (size_t)n;
  }
  return off;
}

/** Keeps bytes of a partial frame (or head) for the connection's next read. */
static void keep(conn_t *c, const char *data, size_t n) {
  if (c->len + n > c->cap) {
    c->cap = c->len + n + 4096;
    c->buf = realloc(c->buf, c->cap);
    if (c->buf == NULL) die("realloc");
  }
  memcpy(c->buf + c->len, data, n);
  c->len += n;
}

/**
 * Reads go into one buffer for all connections (a connection's own buffer holds only a partial frame carried
 * over), so that the kernel copies into the same few cache-warm pages whichever socket is read.
 */
static char rbuf[65536];

static void on_readable(conn_t *c) {
  for (;;) {
    ssize_t r = read(c->fd, rbuf, sizeof rbuf);
    if (r < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      if (errno == EINTR) continue;
      c->closed = 1;
      return;
    }
    if (r == 0) {
      c->closed = 1;
      return;
    }
    double now = mono_ms();
    if (c->len == 0) {
      size_t used = parse(c, rbuf, (size_t)r, now);
      if (used < (size_t)r) keep(c, rbuf + used, (size_t)r - used);
    } else {
      keep(c, rbuf, (size_t)r);
      size_t used = parse(c, c->buf, c->len, now);
      memmove(c->buf, c->buf + used, c->len - used);
      c->len -= used;
    }
    if ((size_t)r < sizeof rbuf) return; // a short read: the socket is drained (epoll is level-triggered anyway)
  }
}

static void send_text(int fd, const char *text) {
  size_t n = strlen(text);
  unsigned char head[8];
  size_t h;
  if (n < 126) {
    head[0] = 0x81, head[1] = 0x80 | (unsigned char)n, h = 2;
  } else if (n < 65536) {
    head[0] = 0x81, head[1] = 0x80 | 126, head[2] = (unsigned char)(n >> 8), head[3] = (unsigned char)n, h = 4;
  } else {
    fprintf(stderr, "message too long for this client\n");
    exit(1);
  }
  memset(head + h, 0, 4); // mask key 0: the payload goes as it is
  write_all(fd, head, h + 4);
  write_all(fd, text, n);
}

static double round_p99(void) {
  uint64_t want = nrounds - nrounds / 100, seen = 0;
  for (int i = 0; i <= 100000; i++) {
    seen += rounds[i];
    if (seen >= want && nrounds > 0) return i / 1000.0;
  }
  return 100.0;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: wsclient <port> <path> <subscribe> <subscribers> <record>\n");
    return 2;
  }
  int port = atoi(argv[1]);
  const char *path = argv[2];
  subscribe_text = argv[3];
  nconns = atoi(argv[4]);
  record = atoi(argv[5]);
  conns = calloc((size_t)nconns, sizeof *conns);
  int ep = epoll_create1(0);
  if (ep < 0) die("epoll_create1");
  char upgrade[1024];
  snprintf(upgrade, sizeof upgrade,
           "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
           path);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  for (int k = 0; k < nconns; k++) {
    conn_t *c = &conns[k];
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0) die("socket");
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) < 0) die("connect");
    write_all(c->fd, upgrade, strlen(upgrade));
    if (fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0) die("fcntl");
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)k};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) < 0) die("epoll_ctl");
  }
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev) < 0) die("epoll_ctl stdin");

  char line[256];
  size_t linelen = 0;
  double next_seen = 0;
  struct epoll_event events[256];
  for (;;) {
    int timeout = driving && !record ? 5 : -1;
    int n = epoll_wait(ep, events, 256, timeout);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("epoll_wait");
    }
    double start = mono_ms();
    for (int i = 0; i < n; i++) {
      uint32_t k = events[i].data.u32;
      if (k != UINT32_MAX) {
        on_readable(&conns[k]);
        if (conns[k].closed) epoll_ctl(ep, EPOLL_CTL_DEL, conns[k].fd, NULL);
        continue;
      }
      ssize_t r = read(0, line + linelen, sizeof line - 1 - linelen);
      if (r <= 0) return 0; // the driver is gone
      linelen += (size_t)r;
      char *nl;
      while ((nl = memchr(line, '\n', linelen)) != NULL) {
        *nl = 0;
        if (strcmp(line, "drive") == 0) {
          driving = 1;
          nrounds = 0;
          memset(rounds, 0, sizeof rounds);
          round_max = 0;
          printf("driving\n");
          fflush(stdout);
        } else if (strcmp(line, "finish") == 0) {
          driving = 0;
          int held = 0;
          for (int j = 0; j < nconns; j++) held += !conns[j].closed;
          printf("receipts %zu %llu %d %.6f %.6f %zu %.3f %.3f\n", nrec, (unsigned long long)delivered, held,
                 first == 1e300 ? 0 : first, last, message_bytes, round_p99(), round_max);
          fflush(stdout);
          write_all(1, ts, nrec * sizeof *ts);
          write_all(1, at, nrec * sizeof *at);
        } else if (strcmp(line, "close") == 0) {
          for (int j = 0; j < nconns; j++) close(conns[j].fd);
          return 0;
        }
        size_t used = (size_t)(nl - line) + 1;
        memmove(line, nl + 1, linelen - used);
        linelen -= used;
      }
    }
    double end = mono_ms();
    if (driving && n > 0) {
      double d = end - start;
      int us = (int)(d * 1000);
      rounds[us > 100000 ? 100000 : us]++;
      nrounds++;
      if (d > round_max) round_max = d;
    }
    if (driving && !record && end >= next_seen) {
      uint32_t min = UINT32_MAX;
      for (int j = 0; j < nconns; j++)
        if (conns[j].count < min) min = conns[j].count;
      printf("seen %u\n", min);
      fflush(stdout);
      next_seen = end + 5;
    }
  }
}
