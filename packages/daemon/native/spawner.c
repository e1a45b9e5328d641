/*
 * pincer-spawner: starts commands for pincer-daemon with posix_spawn.
 *
 * Why native: Node's child_process.spawn forks the whole calling process. From a small Node
 * process that costs about 1.3-1.7 ms per command here, and more from a large one; posix_spawn
 * from this process (under 1 MiB resident, glibc uses CLONE_VFORK) starts and reaps `true` in about
 * 0.4 ms. The daemon keeps one of these running and talks to it over its stdin and stdout.
 *
 * Protocol (host byte order; every frame is a u32 length, then that many bytes):
 *   request  SPAWN: u32 op=1, u32 id, u32 flags (1 = no stdio, 2 = has stdin, 4 = late pid,
 *                   8 = cwd is a default: / where it cannot be entered), str file, str cwd,
 *                   u32 argc, argc x str (argv[0] first), u32 envc, envc x str ("KEY=value"),
 *                   str stdin. A str is a u32 length and the bytes, without a terminating NUL.
 *            PAUSE: u32 op=2, u32 id, u32 paused (1: stop reading the command's output, so it
 *                   blocks once its pipes are full; 0: read again). The daemon's backpressure.
 *            KILL:  u32 op=3, u32 id. SIGKILL to every process the command started, including
 *                   those that left its process group or session (see "Escapes" below).
 *   reply          u8 type, u32 id, then: SPAWNED i32 pid | ERROR i32 errno | STDOUT/STDERR bytes |
 *                  EXIT i32 code (-1 when signalled), i32 signal (0 when exited).
 * Replies go out once per turn of this process's loop, in one write, so that the daemon wakes once for
 * what one turn produced. With "late pid", SPAWNED waits until the command's first output, its
 * EXIT or LATE_PID_MS, whichever comes first: a short command's SPAWNED and EXIT then arrive
 * together, and the daemon wakes once for it instead of twice (each wake of a process costs tens to
 * hundreds of microseconds on a virtual machine whose idle CPUs halt). SPAWNED always comes first.
 * Each command leads a new session (its own process group), with default signal handling, an
 * empty signal mask, and no descriptor but its stdin, stdout and stderr. EXIT follows the
 * command's output; it is sent when both output pipes closed, or 200 ms after the command exited
 * if a grandchild still holds them (not while paused). When the daemon goes away (stdin closes),
 * everything the commands started is killed and this process exits.
 *
 * Escapes. A process group cannot hold a process that calls setsid(), forks twice or calls
 * daemon(3). Where this process can create cgroups (cgroup v2, writable: root, or a delegated
 * subtree), each command starts inside its own cgroup (clone3 with CLONE_INTO_CGROUP, so not even
 * its first instruction runs outside it), and KILL writes cgroup.kill: nothing escapes a cgroup.
 * A cgroup is the command's alone while the command or anything it left runs in it; once empty it
 * serves a later command (a killed one is removed instead), so that no command waits for a mkdir.
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
enum { F_NO_STDIO = 1, F_HAS_STDIN = 2, F_LATE_PID = 4, F_DEFAULT_CWD = 8 };
#define EXIT_GRACE_MS 200
#define LATE_PID_MS 10
#define READ_CHUNK 65536

typedef struct {
  uint32_t id;
  pid_t pid;
  int out_fd, err_fd, in_fd;
  char *in_buf;
  size_t in_len, in_off;
  int exited, status, paused;
  double exit_deadline;
  int pid_pending;     /* SPAWNED not sent yet (late pid) */
  double pid_deadline; /* when it is sent at the latest */
} child_t;

static child_t *children;
static size_t nchildren, capchildren;

/* The cgroup this process creates its commands' cgroups in ("" when cgroups are not usable).
 * A cgroup is made once and used again: making one (mkdir) and removing it (rmdir) cost about
 * 0.3 ms per command here, more than the spawn itself. `groups` holds those a command owns: a
 * command's cgroup stays its own after it exits while anything it left running is in it. `spare`
 * holds empty ones, ready for the next command. */
typedef struct {
  uint32_t slot;  /* its name, g<slot> */
  uint32_t owner; /* the command's id (in `groups`) */
  int dir_fd;     /* for clone3's CLONE_INTO_CGROUP */
  int events_fd;  /* cgroup.events, read to see whether it is empty */
  int killed;     /* cgroup.kill was written: never used again (see groups_prune) */
} group_t;
static char cg_base[8192];
static group_t *groups, *spare;
static size_t ngroups, capgroups, nspare, capspare;
static uint32_t next_slot = 1;
#define MAX_SPARE 8

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void kill_all_and_exit(int code);

/* Writes all of `len` bytes; a daemon that is gone ends this process. */
static void write_all(const char *p, size_t len) {
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

/* Replies of this turn of the loop, written at its end (flush_replies). */
static char *out_buf;
static size_t out_len, out_cap;

static void flush_replies(void) {
  size_t len = out_len;
  out_len = 0;
  write_all(out_buf, len);
}

static void reply(uint8_t type, uint32_t id, const void *body, size_t blen) {
  if (out_cap - out_len < 9 + blen) {
    /* Output chunks are up to READ_CHUNK: past a few of them, write what waits first. */
    if (out_len > 0 && out_len + 9 + blen > 4 * READ_CHUNK) flush_replies();
    if (out_cap - out_len < 9 + blen) {
      out_cap = out_len + 9 + blen + READ_CHUNK;
      out_buf = realloc(out_buf, out_cap);
      if (!out_buf) _exit(70);
    }
  }
  uint32_t len = (uint32_t)(5 + blen);
  char *at = out_buf + out_len;
  memcpy(at, &len, 4);
  at[4] = (char)type;
  memcpy(at + 5, &id, 4);
  if (blen) memcpy(at + 9, body, blen);
  out_len += 9 + blen;
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

static void group_path(char *out, size_t cap, uint32_t slot, const char *file) {
  snprintf(out, cap, "%s/g%u%s%s", cg_base, slot, file ? "/" : "", file ? file : "");
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

static void *grow(void *arr, size_t *cap, size_t size) {
  *cap = *cap ? *cap * 2 : 16;
  arr = realloc(arr, *cap * size);
  if (!arr) _exit(70);
  return arr;
}

/* True when no process is in the cgroup ("populated 0" in its cgroup.events). */
static int group_empty(const group_t *g) {
  char buf[256];
  ssize_t n = pread(g->events_fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = 0;
  return strstr(buf, "populated 0") != NULL;
}

/* Removes a cgroup; false while something still runs in it. */
static int group_destroy(const group_t *g) {
  char path[8448];
  group_path(path, sizeof path, g->slot, NULL);
  if (rmdir(path) != 0 && errno != ENOENT) return 0;
  close(g->dir_fd);
  close(g->events_fd);
  return 1;
}

static child_t *find_child(uint32_t id);

/* Cgroups of finished commands that emptied become spare (or are removed beyond MAX_SPARE). A
 * command's own cgroup is kept while the command runs, and after while something it left does. */
static void groups_prune(void) {
  for (size_t i = ngroups; i-- > 0;) {
    group_t g = groups[i];
    if (find_child(g.owner) || !group_empty(&g)) continue;
    /* A killed cgroup is removed: some kernels (6.18 here) go on killing every process cloned into
     * it with CLONE_INTO_CGROUP, as if the kill were still under way. */
    if (nspare < MAX_SPARE && !g.killed) {
      if (nspare == capspare) spare = grow(spare, &capspare, sizeof *spare);
      g.owner = 0;
      spare[nspare++] = g;
    } else if (!group_destroy(&g)) {
      continue;
    }
    groups[i] = groups[--ngroups];
  }
}

static group_t *group_of(uint32_t id) {
  for (size_t i = 0; i < ngroups; i++)
    if (groups[i].owner == id) return &groups[i];
  return NULL;
}

static int group_kill(uint32_t id) {
  group_t *g = group_of(id);
  if (!g) return 0;
  char path[8448];
  group_path(path, sizeof path, g->slot, "cgroup.kill");
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  g->killed = 1;
  int ok = write(fd, "1", 1) == 1;
  close(fd);
  return ok;
}

/* A new, empty cgroup, made now; 0 when it cannot be. */
static int group_make(group_t *out) {
  char path[8448], events[8448];
  uint32_t slot = next_slot++;
  group_path(path, sizeof path, slot, NULL);
  group_path(events, sizeof events, slot, "cgroup.events");
  if (mkdir(path, 0755) != 0 && errno != EEXIST) return 0;
  int dir_fd = open(path, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  int events_fd = dir_fd < 0 ? -1 : open(events, O_RDONLY | O_CLOEXEC);
  if (events_fd < 0) {
    if (dir_fd >= 0) close(dir_fd);
    rmdir(path);
    return 0;
  }
  *out = (group_t){slot, 0, dir_fd, events_fd, 0};
  return 1;
}

/* Keeps one spare cgroup ready, between requests, so that the next command does not wait for one. */
static void groups_prepare(void) {
  if (!cg_base[0] || nspare > 0) return;
  group_t g;
  if (!group_make(&g)) return;
  if (nspare == capspare) spare = grow(spare, &capspare, sizeof *spare);
  spare[nspare++] = g;
}

/* A cgroup for command `id`, as an open directory (-1 when there is none): a spare one, or a new one. */
static int group_create(uint32_t id) {
  if (!cg_base[0]) return -1;
  group_t g;
  if (nspare > 0) g = spare[--nspare];
  else if (!group_make(&g)) return -1;
  g.owner = id;
  if (ngroups == capgroups) groups = grow(groups, &capgroups, sizeof *groups);
  groups[ngroups++] = g;
  return g.dir_fd;
}

/* Removes every cgroup this process made (the spare ones, and those of commands once empty). */
static void groups_destroy_all(void) {
  while (nspare > 0) group_destroy(&spare[--nspare]);
  for (size_t i = ngroups; i-- > 0;)
    if (group_destroy(&groups[i])) groups[i] = groups[--ngroups];
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
  for (size_t i = 0; i < ngroups; i++) group_kill(groups[i].owner);
  kill_descendants();
  nchildren = 0;
  /* The cgroups empty once their killed processes are reaped. */
  double until = now_ms() + 2000;
  for (;;) {
    groups_destroy_all();
    if (ngroups == 0 || now_ms() > until) break;
    struct timespec ms = {0, 2000000};
    nanosleep(&ms, NULL);
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
  int default_cwd; /* cwd is the daemon's default (the home directory): / where it cannot be entered */
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

/* /dev/null for reading and for writing, opened once (close-on-exec: dup2 gives the command its own). */
static int null_in = -1, null_out = -1;
/* The signals whose disposition is not the default here (SIGPIPE, and any inherited as ignored):
 * the only ones a new process must reset, one syscall each, while this process waits for it. */
static sigset_t not_default;

/* Descriptors this process inherited beyond its stdin, stdout and stderr (from the daemon, which
 * got them from whatever started it) are not the commands' to have: marked close-on-exec, once.
 * Everything this process opens itself is close-on-exec already. */
static void descriptors_setup(void) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) == 0) return;
#endif
  DIR *d = opendir("/proc/self/fd");
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    int fd = atoi(e->d_name);
    if (fd > 2 && fd != dirfd(d)) fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
  }
  closedir(d);
}

static void signals_setup(void) {
  sigemptyset(&not_default);
  for (int sig = 1; sig < NSIG; sig++) {
    struct sigaction sa;
    if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL) sigaddset(&not_default, sig);
  }
}

/* In the new process: its session, signals, descriptors and directory, then the program. Returns
 * the errno that stopped it (it does not return when the program runs). */
static int child_exec(const exec_t *x) {
  setsid();
  for (int sig = 1; sig < NSIG; sig++)
    if (sigismember(&not_default, sig)) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (dup2(x->stdin_fd >= 0 ? x->stdin_fd : null_in, 0) < 0) return errno;
  if (dup2(x->no_stdio ? null_out : x->out_fd, 1) < 0) return errno;
  if (dup2(x->no_stdio ? null_out : x->err_fd, 2) < 0) return errno;
  if (x->cwd[0] && chdir(x->cwd) != 0 && (!x->default_cwd || chdir("/") != 0)) return errno;
  return exec_resolved(x);
}

#if defined(CLONE_INTO_CGROUP) && defined(__x86_64__)
/* clone3 with CLONE_VM, as posix_spawn does with clone: the new process shares this one's memory
 * until it execs (this process is suspended meanwhile, CLONE_VFORK), so nothing is copied and no
 * page of this process faults afterwards; about 0.1 ms less per command than a copy. The new process
 * starts on `stack` with no C frame to return to, so the call into `fn` is made here, in assembly. */
static long clone3_vm(struct clone_args *args, void (*fn)(void *), void *arg) {
  register long rax __asm__("rax") = SYS_clone3;
  register void *rdi __asm__("rdi") = args;
  register long rsi __asm__("rsi") = sizeof *args;
  register void *r12 __asm__("r12") = (void *)fn;
  register void *r13 __asm__("r13") = arg;
  __asm__ volatile(
      "syscall\n\t"
      "test %%rax, %%rax\n\t"
      "jnz 1f\n\t"
      "xor %%ebp, %%ebp\n\t"
      "and $-16, %%rsp\n\t"
      "mov %%r13, %%rdi\n\t"
      "call *%%r12\n\t"
      "ud2\n"
      "1:"
      : "+r"(rax)
      : "r"(rdi), "r"(rsi), "r"(r12), "r"(r13)
      : "rcx", "r11", "memory");
  return rax;
}

typedef struct {
  const exec_t *x;
  volatile int err;
} vm_child_t;

static void vm_child(void *arg) {
  vm_child_t *c = arg;
  c->err = child_exec(c->x);
  _exit(127);
}

static char child_stack[64 * 1024] __attribute__((aligned(16)));
#endif

/* Starts the command in cgroup `cg` with clone3; returns 0 and the pid, or an errno (ENOSYS when
 * clone3 or CLONE_INTO_CGROUP is not available: then the caller uses posix_spawn). */
static int spawn_in_cgroup(pid_t *pid_out, const exec_t *x, int cg) {
#ifdef CLONE_INTO_CGROUP
  struct clone_args args;
  memset(&args, 0, sizeof args);
  /* CLONE_VFORK: this process waits until the command has exec'd (or failed to). */
  args.flags = CLONE_VFORK | CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = (uint64_t)cg;
#ifdef __x86_64__
  vm_child_t c = {x, 0};
  args.flags |= CLONE_VM;
  args.stack = (uint64_t)(uintptr_t)child_stack;
  args.stack_size = sizeof child_stack;
  long pid = clone3_vm(&args, vm_child, &c);
  int clone_err = pid < 0 ? (int)-pid : 0;
  int32_t err = pid > 0 ? c.err : 0;
#else
  /* Elsewhere a copy of this process (small), which reports a failed exec through a pipe. */
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return errno;
  long pid = syscall(SYS_clone3, &args, sizeof args);
  if (pid == 0) {
    close(report[0]);
    int32_t e = child_exec(x);
    if (write(report[1], &e, sizeof e) < 0) {
      /* nothing more to do: the parent sees EOF and the exit status */
    }
    _exit(127);
  }
  int clone_err = pid < 0 ? errno : 0;
  close(report[1]);
  int32_t err = 0;
  if (pid > 0 && read(report[0], &err, sizeof err) != (ssize_t)sizeof err) err = 0;
  close(report[0]);
#endif
  if (pid < 0)
    return clone_err == E2BIG || clone_err == EINVAL || clone_err == EPERM || clone_err == EACCES || clone_err == EBUSY || clone_err == ENOSYS
               ? ENOSYS
               : clone_err;
  if (err != 0) {
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

  int no_stdio = flags & F_NO_STDIO, has_stdin = (flags & F_HAS_STDIN) && in_len > 0, default_cwd = (flags & F_DEFAULT_CWD) != 0;
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
      exec_t x = {file, cwd, argv, envp, has_stdin ? in_p[0] : -1, out_p[1], err_p[1], no_stdio, default_cwd};
      err = spawn_in_cgroup(&pid, &x, cg);
      in_cgroup = err == 0;
      if (!in_cgroup) {
        groups_prune();
        /* clone3 or CLONE_INTO_CGROUP refused here (an old kernel, a seccomp filter, a cgroup
         * with controllers): commands start with posix_spawn from now on. */
        if (err == ENOSYS) {
          groups_destroy_all();
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
    /* Checked here, where the new process's chdir could only fail the spawn. */
    if (cwd[0]) posix_spawn_file_actions_addchdir_np(&fa, default_cwd && access(cwd, X_OK) != 0 ? "/" : cwd);
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
  if (flags & F_LATE_PID) {
    ch->pid_pending = 1;
    ch->pid_deadline = now_ms() + LATE_PID_MS;
  } else {
    reply_i32s(R_SPAWNED, id, pid, 0, 0);
  }
}

/* SPAWNED for a late-pid command, if not sent yet: before its output, its EXIT, or at its deadline. */
static void send_pid(child_t *ch) {
  if (!ch->pid_pending) return;
  ch->pid_pending = 0;
  reply_i32s(R_SPAWNED, ch->id, ch->pid, 0, 0);
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
  send_pid(ch);
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
  int in_group = group_kill(id);
  child_t *ch = find_child(id);
  if (!in_group && ch && !ch->exited) kill(-ch->pid, SIGKILL);
}

static void drain(child_t *ch, int *fd, uint8_t type) {
  static char buf[READ_CHUNK];
  ssize_t n = read(*fd, buf, sizeof buf);
  if (n > 0) {
    send_pid(ch);
    reply(type, ch->id, buf, (size_t)n);
  }
  else if (n == 0 || (errno != EINTR && errno != EAGAIN)) close_fd(fd);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  /* Orphans of the commands become this process's children, so that it can end them (see above). */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  descriptors_setup();
  signals_setup();
  null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  null_out = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_in < 0 || null_out < 0) return 73;
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
    flush_replies();
    groups_prepare();
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
      if (ch->pid_pending && (next < 0 || ch->pid_deadline < next)) next = ch->pid_deadline;
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
    for (size_t i = 0; i < nchildren; i++)
      if (children[i].pid_pending && now >= children[i].pid_deadline) send_pid(&children[i]);
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
