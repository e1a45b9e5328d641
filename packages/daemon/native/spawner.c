/*
 * pincer-spawner: starts commands for pincer-daemon with posix_spawn.
 *
 * Why native: Node's child_process.spawn forks the whole calling process. From a small Node
 * process that costs about 1.3-1.7 ms per command here, and more from a large one; posix_spawn
 * from this process (under 1 MiB resident, glibc uses CLONE_VFORK) starts and reaps `true` in about
 * 0.4 ms. The daemon keeps one of these running and talks to it over its stdin and stdout.
 *
 * Protocol (host byte order; every frame is a u32 length, then that many bytes):
 *   request  SPAWN: u32 op=1, u32 id, u32 flags (1 = no stdio, 2 = has stdin), str file, str cwd,
 *                   u32 argc, argc x str (argv[0] first), u32 envc, envc x str ("KEY=value"),
 *                   str stdin. A str is a u32 length and the bytes, without a terminating NUL.
 *   reply          u8 type, u32 id, then: SPAWNED i32 pid | ERROR i32 errno | STDOUT/STDERR bytes |
 *                  EXIT i32 code (-1 when signalled), i32 signal (0 when exited).
 * Each command leads a new session (its own process group), with default signal handling and an
 * empty signal mask. EXIT follows the command's output; it is sent when both output pipes closed,
 * or 200 ms after the command exited if a grandchild still holds them. When the daemon goes away
 * (stdin closes), every process group still running is killed and this process exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { OP_SPAWN = 1 };
enum { R_SPAWNED = 1, R_ERROR = 2, R_STDOUT = 3, R_STDERR = 4, R_EXIT = 5 };
enum { F_NO_STDIO = 1, F_HAS_STDIN = 2 };
#define EXIT_GRACE_MS 200
#define READ_CHUNK 65536

typedef struct {
  uint32_t id;
  pid_t pid;
  int out_fd, err_fd, in_fd;
  char *in_buf;
  size_t in_len, in_off;
  int exited, status;
  double exit_deadline;
} child_t;

static child_t *children;
static size_t nchildren, capchildren;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void kill_all_and_exit(int code) {
  for (size_t i = 0; i < nchildren; i++)
    if (!children[i].exited) kill(-children[i].pid, SIGKILL);
  _exit(code);
}

static void write_all(const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = write(1, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      kill_all_and_exit(0); /* the daemon is gone */
    }
    p += n;
    len -= (size_t)n;
  }
}

static void reply(uint8_t type, uint32_t id, const void *body, size_t blen) {
  char head[9];
  uint32_t len = (uint32_t)(5 + blen);
  memcpy(head, &len, 4);
  head[4] = (char)type;
  memcpy(head + 5, &id, 4);
  write_all(head, 9);
  if (blen) write_all(body, blen);
}

static void reply_i32s(uint8_t type, uint32_t id, int32_t a, int32_t b, int two) {
  int32_t v[2] = {a, b};
  reply(type, id, v, two ? 8 : 4);
}

/* A cursor over one request frame. */
typedef struct {
  const char *p, *end;
  int bad;
} cursor_t;

static uint32_t take_u32(cursor_t *c) {
  uint32_t v = 0;
  if (c->end - c->p < 4) {
    c->bad = 1;
    return 0;
  }
  memcpy(&v, c->p, 4);
  c->p += 4;
  return v;
}

/* A NUL-terminated copy of the next string (the caller frees it). */
static char *take_str(cursor_t *c, size_t *len_out) {
  uint32_t len = take_u32(c);
  if (c->bad || (size_t)(c->end - c->p) < len) {
    c->bad = 1;
    return NULL;
  }
  char *s = malloc((size_t)len + 1);
  if (!s) _exit(70);
  memcpy(s, c->p, len);
  s[len] = 0;
  c->p += len;
  if (len_out) *len_out = len;
  return s;
}

/* PATH lookup in the command's own environment, as execvp would do with it. */
static int spawn_resolved(pid_t *pid, const char *file, posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, char **argv, char **envp) {
  if (strchr(file, '/')) return posix_spawn(pid, file, fa, at, argv, envp);
  const char *path = "/usr/local/bin:/usr/bin:/bin";
  for (char **e = envp; *e; e++)
    if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
  int last = ENOENT;
  size_t flen = strlen(file);
  for (const char *dir = path;; ) {
    const char *colon = strchr(dir, ':');
    size_t dlen = colon ? (size_t)(colon - dir) : strlen(dir);
    char *full = malloc(dlen + flen + 2);
    if (!full) _exit(70);
    if (dlen == 0) {
      strcpy(full, file); /* an empty entry is the working directory */
    } else {
      memcpy(full, dir, dlen);
      full[dlen] = '/';
      memcpy(full + dlen + 1, file, flen + 1);
    }
    struct stat st;
    int err = ENOENT;
    if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) err = posix_spawn(pid, full, fa, at, argv, envp);
    free(full);
    if (err == 0) return 0;
    if (err != ENOENT) last = err;
    if (!colon) return last;
    dir = colon + 1;
  }
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

static void handle_spawn(cursor_t *c) {
  uint32_t id = take_u32(c), flags = take_u32(c);
  char *file = take_str(c, NULL), *cwd = take_str(c, NULL);
  uint32_t argc = take_u32(c);
  if (c->bad || argc > (1u << 20)) _exit(65);
  char **argv = calloc((size_t)argc + 1, sizeof(char *));
  for (uint32_t i = 0; i < argc && !c->bad; i++) argv[i] = take_str(c, NULL);
  uint32_t envc = take_u32(c);
  if (c->bad || envc > (1u << 20)) _exit(65);
  char **envp = calloc((size_t)envc + 1, sizeof(char *));
  for (uint32_t i = 0; i < envc && !c->bad; i++) envp[i] = take_str(c, NULL);
  size_t in_len = 0;
  char *in_buf = take_str(c, &in_len);
  if (c->bad || !argv || !envp) _exit(65); /* a malformed frame: the daemon and this binary disagree */

  int no_stdio = flags & F_NO_STDIO, has_stdin = (flags & F_HAS_STDIN) && in_len > 0;
  int in_p[2] = {-1, -1}, out_p[2] = {-1, -1}, err_p[2] = {-1, -1};
  int ok = 1;
  if (has_stdin && pipe2(in_p, O_CLOEXEC) != 0) ok = 0;
  if (!no_stdio && (pipe2(out_p, O_CLOEXEC) != 0 || pipe2(err_p, O_CLOEXEC) != 0)) ok = 0;
  int err = ok ? 0 : errno;

  pid_t pid = -1;
  if (!err) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    if (has_stdin) posix_spawn_file_actions_adddup2(&fa, in_p[0], 0);
    else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (no_stdio) {
      posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
      posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    } else {
      posix_spawn_file_actions_adddup2(&fa, out_p[1], 1);
      posix_spawn_file_actions_adddup2(&fa, err_p[1], 2);
    }
    if (cwd[0]) posix_spawn_file_actions_addchdir_np(&fa, cwd);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    err = spawn_resolved(&pid, file, &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
  }
  /* The child's ends are the child's now (or nobody's). */
  if (in_p[0] >= 0) close(in_p[0]);
  if (out_p[1] >= 0) close(out_p[1]);
  if (err_p[1] >= 0) close(err_p[1]);

  free(file);
  free(cwd);
  for (uint32_t i = 0; i < argc; i++) free(argv[i]);
  free(argv);
  for (uint32_t i = 0; i < envc; i++) free(envp[i]);
  free(envp);

  if (err) {
    if (in_p[1] >= 0) close(in_p[1]);
    if (out_p[0] >= 0) close(out_p[0]);
    if (err_p[0] >= 0) close(err_p[0]);
    free(in_buf);
    reply_i32s(R_ERROR, id, err, 0, 0);
    return;
  }
  if (nchildren == capchildren) {
    capchildren = capchildren ? capchildren * 2 : 16;
    children = realloc(children, capchildren * sizeof(child_t));
    if (!children) _exit(70);
  }
  child_t *ch = &children[nchildren++];
  memset(ch, 0, sizeof *ch);
  ch->id = id;
  ch->pid = pid;
  ch->out_fd = out_p[0];
  ch->err_fd = err_p[0];
  ch->in_fd = in_p[1];
  if (ch->in_fd >= 0) {
    set_nonblock(ch->in_fd);
    ch->in_buf = in_buf;
    ch->in_len = in_len;
  } else {
    free(in_buf);
  }
  reply_i32s(R_SPAWNED, id, pid, 0, 0);
}

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

/* Sends EXIT and forgets the child once its output is complete (or its grace period passed). */
static void maybe_finish(size_t i, double now) {
  child_t *ch = &children[i];
  if (!ch->exited) return;
  if ((ch->out_fd >= 0 || ch->err_fd >= 0) && now < ch->exit_deadline) return;
  close_fd(&ch->out_fd);
  close_fd(&ch->err_fd);
  close_fd(&ch->in_fd);
  free(ch->in_buf);
  int code = WIFEXITED(ch->status) ? WEXITSTATUS(ch->status) : -1;
  int sig = WIFSIGNALED(ch->status) ? WTERMSIG(ch->status) : 0;
  reply_i32s(R_EXIT, ch->id, code, sig, 1);
  children[i] = children[--nchildren];
}

static void drain(child_t *ch, int *fd, uint8_t type) {
  static char buf[READ_CHUNK];
  ssize_t n = read(*fd, buf, sizeof buf);
  if (n > 0) reply(type, ch->id, buf, (size_t)n);
  else if (n == 0 || (errno != EINTR && errno != EAGAIN)) close_fd(fd);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) return 71;
  fcntl(0, F_SETFD, FD_CLOEXEC);
  fcntl(1, F_SETFD, FD_CLOEXEC);

  char *req = NULL;
  size_t rlen = 0, rcap = 0;
  struct pollfd *pfds = NULL;
  size_t pcap = 0;
  for (;;) {
    size_t need = 2 + nchildren * 3;
    if (need > pcap) {
      pcap = need * 2;
      pfds = realloc(pfds, pcap * sizeof *pfds);
      if (!pfds) _exit(70);
    }
    size_t n = 0;
    pfds[n++] = (struct pollfd){.fd = 0, .events = POLLIN};
    pfds[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    double now = now_ms(), next = -1;
    for (size_t i = 0; i < nchildren; i++) {
      child_t *ch = &children[i];
      pfds[n++] = (struct pollfd){.fd = ch->out_fd, .events = POLLIN};
      pfds[n++] = (struct pollfd){.fd = ch->err_fd, .events = POLLIN};
      pfds[n++] = (struct pollfd){.fd = ch->in_fd, .events = POLLOUT};
      if (ch->exited && (next < 0 || ch->exit_deadline < next)) next = ch->exit_deadline;
    }
    int timeout = next < 0 ? -1 : (int)(next > now ? next - now + 1 : 0);
    if (poll(pfds, n, timeout) < 0 && errno != EINTR) return 72;

    /* Output first, so it goes out before the exit of the same command. */
    for (size_t i = 0, k = 2; i < nchildren; i++, k += 3) {
      child_t *ch = &children[i];
      if (pfds[k].fd >= 0 && pfds[k].revents) drain(ch, &ch->out_fd, R_STDOUT);
      if (pfds[k + 1].fd >= 0 && pfds[k + 1].revents) drain(ch, &ch->err_fd, R_STDERR);
      if (pfds[k + 2].fd >= 0 && pfds[k + 2].revents) {
        ssize_t w = write(ch->in_fd, ch->in_buf + ch->in_off, ch->in_len - ch->in_off);
        if (w > 0) ch->in_off += (size_t)w;
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || ch->in_off == ch->in_len) {
          close_fd(&ch->in_fd);
          free(ch->in_buf);
          ch->in_buf = NULL;
        }
      }
    }
    if (pfds[1].revents) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) > 0) {
      }
      int status;
      pid_t pid;
      while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (size_t i = 0; i < nchildren; i++) {
          if (children[i].pid != pid || children[i].exited) continue;
          children[i].exited = 1;
          children[i].status = status;
          children[i].exit_deadline = now_ms() + EXIT_GRACE_MS;
          /* A command without output pipes, or whose pipes closed: done now. */
          break;
        }
      }
    }
    now = now_ms();
    for (size_t i = nchildren; i-- > 0;) maybe_finish(i, now);

    if (pfds[0].revents) {
      if (rcap - rlen < READ_CHUNK) {
        rcap = rcap * 2 + READ_CHUNK;
        req = realloc(req, rcap);
        if (!req) _exit(70);
      }
      ssize_t got = read(0, req + rlen, rcap - rlen);
      if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) kill_all_and_exit(0);
      if (got > 0) rlen += (size_t)got;
      size_t off = 0;
      while (rlen - off >= 4) {
        uint32_t flen;
        memcpy(&flen, req + off, 4);
        if (rlen - off - 4 < flen) break;
        cursor_t c = {req + off + 4, req + off + 4 + flen, 0};
        uint32_t op = take_u32(&c);
        if (op != OP_SPAWN) _exit(65);
        handle_spawn(&c);
        off += 4 + (size_t)flen;
      }
      memmove(req, req + off, rlen - off);
      rlen -= off;
    }
  }
}
