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
 *            PAUSE: u32 op=2, u32 id, u32 paused (1: stop reading the command's output, so it
 *                   blocks once its pipes are full; 0: read again). The daemon's backpressure.
 *            KILL:  u32 op=3, u32 id. SIGKILL to every process the command started, including
 *                   those that left its process group or session (see "Escapes" below).
 *   reply          u8 type, u32 id, then: SPAWNED i32 pid | ERROR i32 errno | STDOUT/STDERR bytes |
 *                  EXIT i32 code (-1 when signalled), i32 signal (0 when exited).
 * Each command leads a new session (its own process group), with default signal handling and an
 * empty signal mask. EXIT follows the command's output; it is sent when both output pipes closed,
 * or 200 ms after the command exited if a grandchild still holds them (not while paused). When the
 * daemon goes away (stdin closes), everything the commands started is killed and this process exits.
 *
 * Escapes. A process group cannot hold a process that calls setsid(), forks twice or calls
 * daemon(3). Where this process can create cgroups (cgroup v2, writable: root, or a delegated
 * subtree), each command starts inside its own cgroup (clone3 with CLONE_INTO_CGROUP, so not even
 * its first instruction runs outside it), and KILL writes cgroup.kill: nothing escapes a cgroup.
 * Elsewhere KILL reaches the process group only. Either way this process is a child subreaper, so
 * an orphaned descendant becomes its child rather than init's, and on exit it kills its children
 * until none is left: nothing a command started outlives the daemon.
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
#include <dirent.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>

enum { OP_SPAWN = 1, OP_PAUSE = 2, OP_KILL = 3 };
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
  int exited, status, paused;
  double exit_deadline;
} child_t;

static child_t *children;
static size_t nchildren, capchildren;

/* The cgroup this process creates its commands' cgroups in ("" when cgroups are not usable), and
 * the ids of the commands whose cgroup still exists: a command's cgroup outlives the command while
 * anything it left running is in it. */
static char cg_base[8192];
static uint32_t *groups;
static size_t ngroups, capgroups;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void kill_all_and_exit(int code);

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


/* ---- cgroups ---------------------------------------------------------------------------------- */

static void group_path(char *out, size_t cap, uint32_t id, const char *file) {
  snprintf(out, cap, "%s/c%u%s%s", cg_base, id, file ? "/" : "", file ? file : "");
}

/* Finds the cgroup v2 mount and this process's cgroup in it, and creates cg_base under it. */
static void cgroup_setup(void) {
  const char *off = getenv("PINCER_SPAWNER_CGROUPS");
  if (off && strcmp(off, "0") == 0) return;
  char mnt[2048] = "", own[4096] = "", line[4096];
  FILE *f = fopen("/proc/self/mountinfo", "re");
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    /* id parent maj:min root mountpoint options ... - fstype source superoptions */
    char root[2048], point[2048];
    const char *dash = strstr(line, " - cgroup2 ");
    if (dash && sscanf(line, "%*s %*s %*s %2047s %2047s", root, point) == 2 && strcmp(root, "/") == 0) {
      snprintf(mnt, sizeof mnt, "%s", point);
      break;
    }
  }
  fclose(f);
  f = fopen("/proc/self/cgroup", "re");
  if (!f) return;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "0::", 3) == 0) {
      line[strcspn(line, "\n")] = 0;
      snprintf(own, sizeof own, "%s", line + 3);
    }
  fclose(f);
  if (!mnt[0] || !own[0]) return;
  /* The pid alone is not unique: spawners in separate PID namespaces (sandboxes) that share the
   * cgroup tree often have the same one, and one would kill the other's commands. */
  uint64_t nonce = 0;
  if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce) nonce = (uint64_t)now_ms() ^ ((uint64_t)getpid() << 32);
  snprintf(cg_base, sizeof cg_base, "%s%s/pincer-spawner-%d-%016llx", mnt, strcmp(own, "/") == 0 ? "" : own, (int)getpid(),
           (unsigned long long)nonce);
  if (mkdir(cg_base, 0755) != 0 && errno != EEXIST) cg_base[0] = 0;
}

/* Removes a command's cgroup once nothing runs in it; false while it is still populated. */
static int group_remove(uint32_t id) {
  char path[8448];
  group_path(path, sizeof path, id, NULL);
  return rmdir(path) == 0 || errno == ENOENT;
}

static void groups_prune(void) {
  for (size_t i = ngroups; i-- > 0;)
    if (group_remove(groups[i])) groups[i] = groups[--ngroups];
}

static int group_kill(uint32_t id) {
  char path[8448];
  group_path(path, sizeof path, id, "cgroup.kill");
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  int ok = write(fd, "1", 1) == 1;
  close(fd);
  return ok;
}

/* A new cgroup for command `id`, as an open directory (-1 when it cannot be made). */
static int group_create(uint32_t id) {
  if (!cg_base[0]) return -1;
  groups_prune();
  char path[8448];
  group_path(path, sizeof path, id, NULL);
  if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
  int fd = open(path, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    rmdir(path);
    return -1;
  }
  if (ngroups == capgroups) {
    capgroups = capgroups ? capgroups * 2 : 16;
    groups = realloc(groups, capgroups * sizeof *groups);
    if (!groups) _exit(70);
  }
  groups[ngroups++] = id;
  return fd;
}

/* SIGKILL to all the spawner's children, reaping them, until it has none: as a subreaper it
 * inherits each orphan, so this ends with every descendant gone. Bounded to a few seconds. */
static void kill_descendants(void) {
  double until = now_ms() + 3000;
  int self = (int)getpid();
  for (;;) {
    pid_t got;
    while ((got = waitpid(-1, NULL, WNOHANG)) > 0) {
    }
    if ((got < 0 && errno == ECHILD) || now_ms() > until) return;
    DIR *d = opendir("/proc");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      char path[300], stat[512];
      snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      ssize_t n = read(fd, stat, sizeof stat - 1);
      close(fd);
      if (n <= 0) continue;
      stat[n] = 0;
      /* pid (comm) state ppid ...: comm may hold spaces and parentheses, so parse after the last ')'. */
      char *rp = strrchr(stat, ')');
      char st;
      int ppid;
      if (rp && sscanf(rp + 1, " %c %d", &st, &ppid) == 2 && ppid == self) kill(atoi(e->d_name), SIGKILL);
    }
    closedir(d);
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
}

static void kill_all_and_exit(int code) {
  for (size_t i = 0; i < nchildren; i++)
    if (!children[i].exited) kill(-children[i].pid, SIGKILL);
  for (size_t i = 0; i < ngroups; i++) group_kill(groups[i]);
  kill_descendants();
  /* The cgroups empty once their killed processes are reaped. */
  double until = now_ms() + 2000;
  while (ngroups > 0 && now_ms() < until) {
    groups_prune();
    if (ngroups > 0) {
      struct timespec ms = {0, 2000000};
      nanosleep(&ms, NULL);
    }
  }
  if (cg_base[0]) rmdir(cg_base);
  _exit(code);
}

/* ---- starting a command --------------------------------------------------------------------------- */

typedef struct {
  const char *file, *cwd;
  char **argv, **envp;
  int stdin_fd, out_fd, err_fd; /* -1: /dev/null */
  int no_stdio;
} exec_t;

/* execve with a PATH search in the command's own environment, as execvpe would do with it. */
static int exec_resolved(const exec_t *x) {
  if (strchr(x->file, '/')) {
    execve(x->file, x->argv, x->envp);
    return errno;
  }
  const char *path = "/usr/local/bin:/usr/bin:/bin";
  for (char **e = x->envp; *e; e++)
    if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
  int last = ENOENT;
  char full[4096];
  for (const char *dir = path;;) {
    const char *colon = strchr(dir, ':');
    size_t dlen = colon ? (size_t)(colon - dir) : strlen(dir);
    if (dlen == 0) snprintf(full, sizeof full, "%s", x->file); /* an empty entry is the working directory */
    else snprintf(full, sizeof full, "%.*s/%s", (int)dlen, dir, x->file);
    execve(full, x->argv, x->envp);
    if (errno != ENOENT && errno != ENOTDIR) last = errno;
    if (errno == ENOEXEC || errno == ENOMEM || errno == E2BIG) return errno;
    if (!colon) return last;
    dir = colon + 1;
  }
}

/* In the new process: its session, signals, descriptors and directory, then the program. */
static void child_exec(const exec_t *x, int report_fd) {
  setsid();
  for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC), null_out = open("/dev/null", O_WRONLY | O_CLOEXEC);
  int err = 0;
  if (dup2(x->stdin_fd >= 0 ? x->stdin_fd : null_in, 0) < 0) err = errno;
  if (!err && dup2(x->no_stdio ? null_out : x->out_fd, 1) < 0) err = errno;
  if (!err && dup2(x->no_stdio ? null_out : x->err_fd, 2) < 0) err = errno;
  if (!err && x->cwd[0] && chdir(x->cwd) != 0) err = errno;
  if (!err) err = exec_resolved(x);
  int32_t e = err;
  if (write(report_fd, &e, sizeof e) < 0) {
    /* nothing more to do: the parent sees EOF and the exit status */
  }
  _exit(127);
}

/* Starts the command in cgroup `cg` with clone3; returns 0 and the pid, or an errno (ENOSYS when
 * clone3 or CLONE_INTO_CGROUP is not available: then the caller uses posix_spawn). */
static int spawn_in_cgroup(pid_t *pid_out, const exec_t *x, int cg) {
#ifdef CLONE_INTO_CGROUP
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return errno;
  struct clone_args args;
  memset(&args, 0, sizeof args);
  /* CLONE_VFORK: this process waits until the command has exec'd (or failed to). */
  args.flags = CLONE_VFORK | CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = (uint64_t)cg;
  long pid = syscall(SYS_clone3, &args, sizeof args);
  if (pid == 0) {
    close(report[0]);
    child_exec(x, report[1]);
  }
  int clone_err = errno;
  close(report[1]);
  if (pid < 0) {
    close(report[0]);
    return clone_err == E2BIG || clone_err == EINVAL || clone_err == EPERM || clone_err == EACCES || clone_err == EBUSY ? ENOSYS : clone_err;
  }
  int32_t err = 0;
  ssize_t n = read(report[0], &err, sizeof err);
  close(report[0]);
  if (n == (ssize_t)sizeof err && err != 0) {
    waitpid((pid_t)pid, NULL, 0);
    return err;
  }
  *pid_out = (pid_t)pid;
  return 0;
#else
  (void)pid_out, (void)x, (void)cg;
  return ENOSYS;
#endif
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
  int in_cgroup = 0;
  if (!err) {
    int cg = group_create(id);
    if (cg >= 0) {
      exec_t x = {file, cwd, argv, envp, has_stdin ? in_p[0] : -1, out_p[1], err_p[1], no_stdio};
      err = spawn_in_cgroup(&pid, &x, cg);
      close(cg);
      in_cgroup = err == 0;
      if (!in_cgroup) {
        groups_prune();
        /* clone3 or CLONE_INTO_CGROUP refused here (an old kernel, a seccomp filter, a cgroup
         * with controllers): commands start with posix_spawn from now on. */
        if (err == ENOSYS) {
          rmdir(cg_base);
          cg_base[0] = 0;
          err = 0;
        }
      }
    }
  }
  if (!err && !in_cgroup) {
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
  /* Paused output is not given up on: the daemon reads it when its client does. */
  if ((ch->out_fd >= 0 || ch->err_fd >= 0) && (ch->paused || now < ch->exit_deadline)) return;
  close_fd(&ch->out_fd);
  close_fd(&ch->err_fd);
  close_fd(&ch->in_fd);
  free(ch->in_buf);
  int code = WIFEXITED(ch->status) ? WEXITSTATUS(ch->status) : -1;
  int sig = WIFSIGNALED(ch->status) ? WTERMSIG(ch->status) : 0;
  reply_i32s(R_EXIT, ch->id, code, sig, 1);
  children[i] = children[--nchildren];
  groups_prune();
}

static child_t *find_child(uint32_t id) {
  for (size_t i = 0; i < nchildren; i++)
    if (children[i].id == id) return &children[i];
  return NULL;
}

static void handle_pause(cursor_t *c) {
  uint32_t id = take_u32(c), paused = take_u32(c);
  if (c->bad) _exit(65);
  child_t *ch = find_child(id);
  if (!ch) return;
  ch->paused = paused != 0;
  if (!ch->paused && ch->exited) ch->exit_deadline = now_ms() + EXIT_GRACE_MS;
}

static void handle_kill(cursor_t *c) {
  uint32_t id = take_u32(c);
  if (c->bad) _exit(65);
  int in_group = 0;
  for (size_t i = 0; i < ngroups; i++)
    if (groups[i] == id) in_group = group_kill(id);
  child_t *ch = find_child(id);
  if (!in_group && ch && !ch->exited) kill(-ch->pid, SIGKILL);
}

static void drain(child_t *ch, int *fd, uint8_t type) {
  static char buf[READ_CHUNK];
  ssize_t n = read(*fd, buf, sizeof buf);
  if (n > 0) reply(type, ch->id, buf, (size_t)n);
  else if (n == 0 || (errno != EINTR && errno != EAGAIN)) close_fd(fd);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  /* Orphans of the commands become this process's children, so that it can end them (see above). */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  cgroup_setup();
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
      /* A negative fd is skipped by poll: a paused command's output waits in its pipes. */
      pfds[n++] = (struct pollfd){.fd = ch->paused ? -1 : ch->out_fd, .events = POLLIN};
      pfds[n++] = (struct pollfd){.fd = ch->paused ? -1 : ch->err_fd, .events = POLLIN};
      pfds[n++] = (struct pollfd){.fd = ch->in_fd, .events = POLLOUT};
      if (ch->exited && !ch->paused && (next < 0 || ch->exit_deadline < next)) next = ch->exit_deadline;
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
        if (op == OP_SPAWN) handle_spawn(&c);
        else if (op == OP_PAUSE) handle_pause(&c);
        else if (op == OP_KILL) handle_kill(&c);
        else _exit(65);
        off += 4 + (size_t)flen;
      }
      memmove(req, req + off, rlen - off);
      rlen -= off;
    }
  }
}
