/*
 * Shared by the sandbox helper's two files: sandbox.c (the namespaces, the layer, the overlay) and
 * hidden.c (what the sandbox hides of this computer, walked at each start).
 */
#ifndef PINCER_SANDBOX_H
#define PINCER_SANDBOX_H
#define _GNU_SOURCE
#include <sys/types.h>
#include <time.h>

/* The new mount API (Linux 5.2 / 5.12); the same numbers on every architecture. */
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#define PINCER_OPEN_TREE_CLONE 1

#define MAX_LISTED 64

/* What the sandbox shows of this computer's root file system, and what it walks for private entries. */
struct view {
  char **show; /* top-level names shown, and walked */
  int n_show;
  char **keep; /* absolute paths neither walked nor hidden: bubblewrap mounts over them */
  int n_keep;
};

void die(const char *what);
void dief(const char *fmt, const char *arg);
void make_dir(const char *path, mode_t mode, uid_t uid, gid_t gid);

/*
 * Whites out of the overlay whose writable layer is `upper` what `lower` (the sandbox's idmapped view
 * of this computer's root file system) must not show: top-level entries that are not `view->show`
 * folders (but `view->keep`), and in those folders what not every user may read.
 */
void hide_private(const struct view *view, const char *lower, const char *upper);

/*
 * Walks this computer's root file system (without what is mounted on it) as hide_private would;
 * prints the first entry it would hide that was made, renamed or changed mode at or after `since`,
 * and returns 1, or returns 0 when there is none.
 */
int private_changed_since(const struct view *view, struct timespec since);

#endif
