/*
 * pincer-sandbox: starts a command (bubblewrap, as machines/sandbox.ts builds it) in a sandbox that
 * contains root. It does the two things bubblewrap cannot:
 *
 * 1. The file system: the host's root file system seen through an idmapped mount (host uid/gid N
 *    shows as N + BASE) under an overlay whose writable layer is a tmpfs. Inside the sandbox's user
 *    namespace (uid/gid 0..65535 = BASE..BASE+65535 outside), the host's files keep their owners,
 *    so root inside can write anywhere, and every write lands in the tmpfs, gone with the sandbox.
 *    What of the host's root file system is not a --show folder (but the --keep paths bubblewrap
 *    mounts over), and what in those folders not every user may read, is whited out of the
 *    overlay: it does not exist inside. The folders are walked (hidden.c) at each start, on the sandbox's own
 *    view of the root file system, so what appeared on the host since the last sandbox is hidden
 *    too. (The overlay shows the live host: what becomes private while a sandbox runs is hidden
 *    from the next one; --changed-since tells whether a sandbox started at a given time is behind.)
 * 2. The user namespace: uid 0 inside is BASE outside, an unprivileged uid that owns nothing of the
 *    host; its capabilities reach only the namespaces made for the sandbox (user, mount, network,
 *    UTS, IPC, cgroup; bubblewrap adds the PID namespace and drops every capability).
 *
 * Usage: pincer-sandbox --base UID --state DIR [--size SIZE] [--show NAME]... [--keep PATH]... [--expose DIR]... [--pid-fd N] -- COMMAND [ARG...]
 *        pincer-sandbox --changed-since SECONDS.NANOSECONDS [--show NAME]... [--keep PATH]...
 *   --base   first outer uid/gid of the sandbox's 65536 (a multiple of 65536, not 0)
 *   --state  an empty directory only root can reach; the layer is mounted at DIR/layer and the
 *            sandbox's root at DIR/layer/root (mounts live in a private mount namespace: they go
 *            away with the sandbox's last process, however it ends)
 *   --size   the tmpfs's size limit, as mount(8) takes it ("4g")
 *   --show   a top-level folder of the host's root file system that the sandbox shows (repeatable);
 *            other top-level entries are whited out
 *   --keep   an absolute path neither walked nor whited out, that bubblewrap mounts over (/tmp, /proc)
 *   --changed-since  instead of a sandbox: walks as a sandbox's start would, and exits 1 (printing
 *            the path) if something it would hide was made, renamed or changed mode at or after
 *            that time (CLOCK_REALTIME), else 0: whether a sandbox started then still hides all
 *   --expose a folder of this computer (repeatable), bound as it is at DIR/layer/expose/N (N = 0, 1,
 *            … in order), where the sandbox's root can reach it to bind it further (bubblewrap's
 *            --ro-bind) even when a folder on its path is closed to other users (/root, a private
 *            temporary folder): bubblewrap looks paths up as the sandbox's root, an unprivileged id
 *            here
 *   --pid-fd writes the pid of the sandbox's first process (in this computer's PID namespace, e.g.
 *            for slirp4netns) to this descriptor as one line once it runs, then closes it
 * The sandbox's network namespace has its loopback up and nothing else; DIR/layer/sys is a sysfs
 * of that namespace (read-only), for bubblewrap to bind as /sys. Exits with the command's
 * status. Dies (SIGKILL) with its parent, and the sandbox with it. Needs root and Linux >= 5.19
 * (idmapped layers of overlayfs).
 *
 * For tests, PINCER_SANDBOX_TEST_DELAY_MS holds the sandbox's first process that long right after
 * the fork and again after it takes the sandbox's ids: the two moments at which it must notice that
 * the helper died (a parent-death signal is not set yet, or was cleared by the change of ids).
 */
#include "sandbox.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* The new mount API (Linux 5.2 / 5.12); the same numbers on every architecture (open_tree's in sandbox.h). */
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#define PINCER_MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define PINCER_MOUNT_ATTR_IDMAP 0x00100000

struct pincer_mount_attr {
  uint64_t attr_set, attr_clr, propagation, userns_fd;
};

#define RANGE 65536u
#define MAX_EXPOSED 64

void die(const char *what) {
  fprintf(stderr, "pincer-sandbox: %s: %s\n", what, strerror(errno));
  exit(125);
}

void dief(const char *fmt, const char *arg) {
  fprintf(stderr, "pincer-sandbox: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, ": %s\n", strerror(errno));
  exit(125);
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) dief("cannot write %s", path);
  close(fd);
}

/* Maps uid and gid 0..65535 of the user namespace of `pid` to base..base+65535. */
static void write_maps(pid_t pid, unsigned base) {
  char path[64], map[64];
  snprintf(map, sizeof map, "0 %u %u\n", base, RANGE);
  snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
  write_file(path, map);
  snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
  write_file(path, map);
}

/* A user namespace with the sandbox's mapping, as a descriptor (for the idmapped mount). */
static int mapping_userns(unsigned base) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) < 0) die("pipe");
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    char c = 0;
    /* It waits in pause(): without this it would outlive a helper killed before it kills it. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent) _exit(1);
    if (unshare(CLONE_NEWUSER) < 0) _exit(1);
    if (write(ready[1], &c, 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char c;
  close(ready[1]);
  if (read(ready[0], &c, 1) != 1) die("the helper process for the uid mapping did not start");
  close(ready[0]);
  write_maps(pid, base);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open the mapping's user namespace");
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return fd;
}

/* Mounts the file system at `src` (that mount only, not those below it) at `dst`, idmapped. */
static void idmapped_clone(const char *src, const char *dst, int userns) {
  int tree = (int)syscall(SYS_open_tree, AT_FDCWD, src, PINCER_OPEN_TREE_CLONE | O_CLOEXEC);
  if (tree < 0) dief("open_tree %s", src);
  struct pincer_mount_attr attr = {.attr_set = PINCER_MOUNT_ATTR_IDMAP, .userns_fd = (uint64_t)userns};
  if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0) {
    dief("idmapped mount of %s (needs Linux >= 5.12 and a file system that supports it: ext4, xfs, btrfs, tmpfs)", src);
  }
  if (syscall(SYS_move_mount, tree, "", AT_FDCWD, dst, PINCER_MOVE_MOUNT_F_EMPTY_PATH) < 0) dief("move_mount to %s", dst);
  close(tree);
}

void make_dir(const char *path, mode_t mode, uid_t uid, gid_t gid) {
  if (mkdir(path, mode) < 0 && errno != EEXIST) dief("mkdir %s", path);
  if (chown(path, uid, gid) < 0) dief("chown %s", path);
}

/* The owner an entry of the host shows inside: shifted into the sandbox's range (nobody outside it). */
static uid_t shifted(unsigned id, unsigned base) {
  return id < RANGE ? base + id : base + 65534u;
}

/* The layer and the overlay: DIR/layer/{lower,upper,work,root}. */
static void build_root(const char *state, const char *size, const struct view *view, unsigned base) {
  char layer[PATH_MAX], lower[PATH_MAX + 8], upper[PATH_MAX + 8], work[PATH_MAX + 8], root[PATH_MAX + 8], opts[PATH_MAX * 4];
  if (strlen(state) > PATH_MAX - 64) die("--state: path too long");
  snprintf(layer, sizeof layer, "%s/layer", state);
  snprintf(lower, sizeof lower, "%s/lower", layer);
  snprintf(upper, sizeof upper, "%s/upper", layer);
  snprintf(work, sizeof work, "%s/work", layer);
  snprintf(root, sizeof root, "%s/root", layer);
  // Only root and the sandbox's root (which bubblewrap runs as) may reach the sandbox's files.
  make_dir(state, 0700, base, base);
  make_dir(layer, 0700, base, base);
  snprintf(opts, sizeof opts, "size=%s,mode=0700,uid=%u,gid=%u", size, base, base);
  if (mount("pincer-layer", layer, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0) die("mount the tmpfs layer");
  make_dir(lower, 0755, 0, 0);
  make_dir(work, 0700, 0, 0);
  make_dir(root, 0755, 0, 0);
  struct stat st;
  if (stat("/", &st) < 0) die("stat /");
  make_dir(upper, st.st_mode & 07777, shifted(st.st_uid, base), shifted(st.st_gid, base));
  int userns = mapping_userns(base);
  idmapped_clone("/", lower, userns);
  close(userns);
  // What this computer keeps from other users, as it is now: walked at every sandbox's start.
  hide_private(view, lower, upper);
  snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work);
  if (mount("pincer-root", root, "overlay", 0, opts) < 0) die("mount the overlay (needs Linux >= 5.19 for idmapped layers)");
}

/* Binds each of `dirs` (with what is mounted below it) at DIR/layer/expose/N, which only the sandbox's root reaches. */
static void expose_dirs(const char *state, char **dirs, int n, unsigned base) {
  char path[PATH_MAX + 32];
  if (n == 0) return;
  snprintf(path, sizeof path, "%s/layer/expose", state);
  make_dir(path, 0700, base, base);
  for (int k = 0; k < n; k++) {
    snprintf(path, sizeof path, "%s/layer/expose/%d", state, k);
    make_dir(path, 0755, base, base);
    if (mount(dirs[k], path, NULL, MS_BIND | MS_REC, NULL) < 0) dief("bind %s", dirs[k]);
  }
}

/* Brings up the loopback interface of this process's network namespace. */
static void loopback_up(void) {
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strcpy(ifr.ifr_name, "lo");
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0) die("read the loopback's flags");
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) die("bring the loopback up");
  close(s);
}

/*
 * Mounts, read-only, a sysfs of the sandbox's own network namespace at DIR/layer/sys (which
 * bubblewrap binds as /sys): its /sys/class/net lists the sandbox's interfaces, not this
 * computer's. Where the kernel refuses it, this computer's /sys is bound there instead, read-only
 * as well (bubblewrap's --ro-bind), and says so.
 */
static void own_sysfs(const char *state) {
  char sys[PATH_MAX + 16];
  snprintf(sys, sizeof sys, "%s/layer/sys", state);
  if (mount("sysfs", sys, "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0) return;
  fprintf(stderr, "pincer-sandbox: a sysfs of the sandbox's own could not be mounted (%s); /sys shows this computer's network interfaces\n", strerror(errno));
  if (mount("/sys", sys, NULL, MS_BIND | MS_REC, NULL) < 0) dief("bind %s", "/sys");
}

static pid_t child = -1;

static void forward(int sig) {
  if (child > 0) kill(child, sig);
}

int main(int argc, char **argv) {
  unsigned long base = 0;
  const char *state = NULL, *size = "4g", *since = NULL;
  int pid_fd = -1;
  char *exposed[MAX_EXPOSED], *show[MAX_LISTED], *keep[MAX_LISTED];
  int n_exposed = 0, n_show = 0, n_keep = 0;
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
    if (i + 1 >= argc) break;
    if (!strcmp(argv[i], "--base")) base = strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--state")) state = argv[i + 1];
    else if (!strcmp(argv[i], "--size")) size = argv[i + 1];
    else if (!strcmp(argv[i], "--show") && n_show < MAX_LISTED && !strchr(argv[i + 1], '/')) show[n_show++] = argv[i + 1];
    else if (!strcmp(argv[i], "--keep") && n_keep < MAX_LISTED && argv[i + 1][0] == '/') keep[n_keep++] = argv[i + 1];
    else if (!strcmp(argv[i], "--changed-since")) since = argv[i + 1];
    else if (!strcmp(argv[i], "--expose") && n_exposed < MAX_EXPOSED && argv[i + 1][0] == '/') exposed[n_exposed++] = argv[i + 1];
    else if (!strcmp(argv[i], "--pid-fd")) pid_fd = atoi(argv[i + 1]);
    else break;
  }
  struct view view = {.show = show, .n_show = n_show, .keep = keep, .n_keep = n_keep};
  if (since && i == argc) {
    char *end;
    struct timespec at = {.tv_sec = (time_t)strtoll(since, &end, 10)};
    at.tv_nsec = *end == '.' ? strtol(end + 1, NULL, 10) : 0;
    return private_changed_since(&view, at);
  }
  if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc || !state || base == 0 || base % RANGE || base > UINT32_MAX - RANGE) {
    fprintf(stderr, "usage: pincer-sandbox --base UID --state DIR [--size SIZE] [--show NAME]... [--keep PATH]... [--expose DIR]... [--pid-fd N] -- COMMAND [ARG...]\n");
    fprintf(stderr, "       pincer-sandbox --changed-since SECONDS.NANOSECONDS [--show NAME]... [--keep PATH]...\n");
    fprintf(stderr, "(--show takes a top-level name, --keep and --expose an absolute path, at most %d of each)\n", MAX_EXPOSED);
    return 125;
  }
  char **command = argv + i + 1;
  if (pid_fd >= 0 && fcntl(pid_fd, F_SETFD, FD_CLOEXEC) < 0) die("--pid-fd");
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) die("prctl");
  if (getppid() == 1) return 125;
  if (unshare(CLONE_NEWNS) < 0) die("unshare the mount namespace (needs root)");
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) die("make / private");
  build_root(state, size, &view, (unsigned)base);
  expose_dirs(state, exposed, n_exposed, (unsigned)base);
  char sys[PATH_MAX + 16];
  snprintf(sys, sizeof sys, "%s/layer/sys", state);
  make_dir(sys, 0755, (unsigned)base, (unsigned)base);

  int go[2], ready[2];
  if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ready, O_CLOEXEC) < 0) die("pipe");
  const char *delay_env = getenv("PINCER_SANDBOX_TEST_DELAY_MS");
  useconds_t delay = delay_env ? (useconds_t)strtoul(delay_env, NULL, 10) * 1000 : 0;
  pid_t helper = getpid();
  child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    char c = 0;
    if (delay) usleep(delay);
    /* A helper killed between the fork and this line sends no signal: the child would wait below forever. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) die("prctl");
    if (getppid() != helper) _exit(125);
    /* Only the helper holds the other ends: its death ends the read below too. */
    close(ready[0]);
    close(go[1]);
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWCGROUP) < 0) die("unshare the namespaces");
    if (write(ready[1], &c, 1) != 1) _exit(125);
    if (read(go[0], &c, 1) != 1) _exit(125);
    if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) die("become root of the user namespace");
    /* The kernel clears the parent-death signal when the ids change: set it again, and check. */
    if (delay) usleep(delay);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) die("prctl");
    if (getppid() != helper) _exit(125);
    loopback_up();
    own_sysfs(state);
    execvp(command[0], command);
    dief("cannot run %s", command[0]);
  }
  close(ready[1]);
  close(go[0]);
  char c = 0;
  if (read(ready[0], &c, 1) != 1) {
    int status;
    waitpid(child, &status, 0);
    return 125;
  }
  write_maps(child, (unsigned)base);
  if (write(go[1], &c, 1) != 1) die("start the sandbox");
  if (pid_fd >= 0) {
    dprintf(pid_fd, "%d\n", (int)child);
    close(pid_fd);
  }
  signal(SIGTERM, forward);
  signal(SIGINT, forward);
  signal(SIGHUP, forward);
  int status;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) die("waitpid");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
