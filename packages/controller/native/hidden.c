/*
 * What the sandbox hides of this computer (see sandbox.c): walked at each sandbox's start, on the
 * sandbox's own view of the root file system, and on demand (--changed-since) to tell whether a
 * sandbox started earlier is behind.
 */
#include "sandbox.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A folder left to walk, relative to the walk's root. */
struct task {
  struct task *next;
  char *path;
  int depth;
};

/*
 * A walk: with `upper` set it whites out what it finds; else it reports what changed since `since`.
 * Threads (one per CPU, up to 4) take folders from a queue: most of the time goes to one fstatat
 * per entry, about 150,000 of them in a system's /usr.
 */
struct walk {
  const struct view *view;
  const char *lower; /* the sandbox's view of this computer: parents of a whiteout are read there */
  const char *upper;
  struct timespec since;
  int found;
  int root; /* the root file system walked */
  pthread_mutex_t lock, out;
  pthread_cond_t more;
  struct task *queue;
  int busy;
};

#define MAX_DEPTH 128

/* Whether every user may read the entry (and enter it, for a folder): what the sandbox may show. */
static int everyone_reads(mode_t mode) {
  return S_ISDIR(mode) ? (mode & 05) == 05 : (mode & 04) == 04;
}

static int listed(char **list, int n, const char *s) {
  for (int k = 0; k < n; k++)
    if (!strcmp(list[k], s)) return 1;
  return 0;
}

/*
 * Whites `path` out of the overlay whose writable layer is `upper`: its parents are made in the
 * layer with the modes and owners they have in `lower` (the idmapped view, so owners are already
 * the sandbox's), then a 0/0 character device, overlayfs's mark for "removed", takes its place.
 */
static void whiteout(const char *lower, const char *upper, const char *path) {
  char at[PATH_MAX * 2], layer[PATH_MAX * 2];
  size_t n = strlen(path);
  if (path[0] != '/' || n >= PATH_MAX) return;
  for (const char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    int len = (int)(slash - path);
    struct stat st;
    snprintf(at, sizeof at, "%s%.*s", lower, len, path);
    if (lstat(at, &st) < 0 || !S_ISDIR(st.st_mode)) return;
    snprintf(layer, sizeof layer, "%s%.*s", upper, len, path);
    if (access(layer, F_OK) < 0) make_dir(layer, st.st_mode & 07777, st.st_uid, st.st_gid);
  }
  snprintf(layer, sizeof layer, "%s%s", upper, path);
  if (mknod(layer, S_IFCHR | 0600, makedev(0, 0)) < 0 && errno != EEXIST) dief("whiteout %s", layer);
}

/* An entry the sandbox must not show: whited out, or (checking) reported when it changed since the walk's time. */
static void private_entry(struct walk *w, const char *path, const struct stat *st) {
  pthread_mutex_lock(&w->out);
  if (w->upper) {
    whiteout(w->lower, w->upper, path);
    pthread_mutex_unlock(&w->out);
    return;
  }
  /* Made, renamed, linked or its mode changed: each sets the change time. Unknown (st NULL): changed. */
  if (!st || st->st_ctim.tv_sec > w->since.tv_sec || (st->st_ctim.tv_sec == w->since.tv_sec && st->st_ctim.tv_nsec >= w->since.tv_nsec)) {
    if (!w->found) printf("%s\n", path);
    w->found = 1;
  }
  pthread_mutex_unlock(&w->out);
}

/* Queues the folder at `path` for a thread of the walk. */
static void push(struct walk *w, const char *path, int depth) {
  struct task *t = malloc(sizeof *t);
  if (!t || !(t->path = strdup(path))) die("out of memory");
  t->depth = depth;
  pthread_mutex_lock(&w->lock);
  t->next = w->queue;
  w->queue = t;
  pthread_cond_signal(&w->more);
  pthread_mutex_unlock(&w->lock);
}

/* Walks the folder `fd` (at `path`, a buffer of PATH_MAX) for entries not every user may read; closes `fd`. */
static void walk_dir(struct walk *w, int fd, char *path, int depth) {
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    private_entry(w, path, NULL);
    return;
  }
  size_t len = strlen(path);
  struct dirent *e;
  while ((e = readdir(d)) && !(w->found && !w->upper)) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (len + 1 + strlen(e->d_name) >= PATH_MAX) {
      private_entry(w, path, NULL);
      continue;
    }
    snprintf(path + len, PATH_MAX - len, "/%s", e->d_name);
    if (depth == 0 && !listed(w->view->show, w->view->n_show, e->d_name)) {
      /* A top-level entry that is not a shown folder: hidden, unless bubblewrap mounts over it. */
      struct stat st;
      if (!listed(w->view->keep, w->view->n_keep, path)) private_entry(w, path, fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? NULL : &st);
      continue;
    }
    if (listed(w->view->keep, w->view->n_keep, path) || e->d_type == DT_LNK) continue;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
      if (errno != ENOENT) private_entry(w, path, NULL);
      continue;
    }
    if (S_ISLNK(st.st_mode)) continue;
    if (!everyone_reads(st.st_mode)) {
      private_entry(w, path, &st);
    } else if (S_ISDIR(st.st_mode) && depth < 3) {
      push(w, path, depth + 1); /* the top three levels are shared out between the threads */
    } else if (S_ISDIR(st.st_mode)) {
      int sub = depth < MAX_DEPTH ? openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
      if (sub < 0) private_entry(w, path, &st);
      else walk_dir(w, sub, path, depth + 1);
    }
  }
  path[len] = 0;
  closedir(d);
}

/* A thread of the walk: takes folders from the queue until it is empty and no thread can add to it. */
static void *walker(void *arg) {
  struct walk *w = arg;
  char path[PATH_MAX];
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (!w->queue && w->busy > 0) pthread_cond_wait(&w->more, &w->lock);
    struct task *t = w->queue;
    if (!t) break;
    w->queue = t->next;
    w->busy++;
    pthread_mutex_unlock(&w->lock);
    snprintf(path, sizeof path, "%s", t->path);
    int fd = openat(w->root, path[0] ? path + 1 : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) private_entry(w, path, NULL);
    else walk_dir(w, fd, path, t->depth);
    free(t->path);
    free(t);
    pthread_mutex_lock(&w->lock);
    if (--w->busy == 0 && !w->queue) pthread_cond_broadcast(&w->more);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

/* Walks the root file system at `root` (a path, or NULL for this computer's own, without what is mounted on it). */
static void walk_root(struct walk *w, const char *root) {
  if (root) {
    w->root = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } else {
    int tree = (int)syscall(SYS_open_tree, AT_FDCWD, "/", PINCER_OPEN_TREE_CLONE | O_CLOEXEC);
    if (tree < 0) die("open_tree /");
    w->root = openat(tree, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    close(tree);
  }
  if (w->root < 0) die("open the root file system to walk it");
  pthread_mutex_init(&w->lock, NULL);
  pthread_mutex_init(&w->out, NULL);
  pthread_cond_init(&w->more, NULL);
  push(w, "", 0);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int n = cpus < 1 ? 1 : cpus > 4 ? 4 : (int)cpus;
  pthread_t threads[4];
  int started = 0;
  for (; started < n - 1; started++)
    if (pthread_create(&threads[started], NULL, walker, w) != 0) break;
  walker(w);
  for (int k = 0; k < started; k++) pthread_join(threads[k], NULL);
  close(w->root);
}

void hide_private(const struct view *view, const char *lower, const char *upper) {
  struct walk w = {.view = view, .lower = lower, .upper = upper};
  walk_root(&w, lower);
}

int private_changed_since(const struct view *view, struct timespec since) {
  struct walk w = {.view = view, .since = since};
  walk_root(&w, NULL);
  return w.found;
}
