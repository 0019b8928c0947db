/* Run isolation (isolate.h): a private mount namespace with fresh overlays
 * on the working directory, TMPDIR and /dev/shm for every run.
 *
 * cts-trace enters the namespace only for a moment (setns, single-threaded):
 * to mount, and to spawn a --check. Every path it uses there is relative to
 * the scratch tmpfs (its cwd meanwhile) or a /proc/self/fd link to a lower
 * directory opened before any overlay existed: once /tmp is overlaid, the
 * scratch tmpfs mounted in /tmp is out of reach by name, and the lower layer
 * of a working directory inside /tmp must be the real one, not the overlay. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>
#include "models/error.h"
#include "tracer/isolate.h"
#include "tracer/proc.h"

#define MAX_AREAS 3

struct area {
	char path[PATH_MAX];  /* where the overlay goes (a real path) */
	int lower;            /* O_PATH fd of the real directory, opened in the namespace */
	struct stat st;       /* its owner, mode and times: the overlay's root shows the upper's */
	struct stat up;       /* the upper layer's root as mounted */
	bool mounted;
};

struct cts_iso {
	int ns;               /* the runs' mount namespace */
	int home_ns;          /* cts-trace's */
	int home_cwd;         /* cts-trace's working directory, to come back to */
	int scratch;          /* the namespace's tmpfs: run/ (a tmpfs per run) holds u<i>, w<i> */
	char scratch_path[PATH_MAX]; /* its mount point: an empty directory outside */
	bool run_mounted;
	unsigned gen;         /* overlays mounted so far */
	bool unshared;        /* cts-trace left its namespace (to come back to) */
	int cwd_area;         /* the working directory's area, -1 when it is / */
	int n;                /* areas, parents before children */
	struct area a[MAX_AREAS];
	char desc[3 * PATH_MAX + 16];
};

/* Into the namespace with the scratch tmpfs as cwd, and back. */
static int ns_in(const struct cts_iso *iso)
{
	if (setns(iso->ns, CLONE_NEWNS) != 0)
		return -1;
	if (fchdir(iso->scratch) != 0) {
		int e = errno;
		if (setns(iso->home_ns, CLONE_NEWNS) != 0 || fchdir(iso->home_cwd) != 0)
			cts_die(3, "cannot return to cts-trace's mount namespace: %s", strerror(errno));
		errno = e;
		return -1;
	}
	return 0;
}

static void ns_out(const struct cts_iso *iso)
{
	int e = errno;
	if (setns(iso->home_ns, CLONE_NEWNS) != 0 || fchdir(iso->home_cwd) != 0)
		cts_die(3, "cannot return to cts-trace's mount namespace: %s", strerror(errno));
	errno = e;
}

static void add_area(struct cts_iso *iso, const char *path)
{
	char real[PATH_MAX];
	struct stat st;
	if (!realpath(path, real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	for (int i = 0; i < iso->n; i++)
		if (strcmp(iso->a[i].path, real) == 0)
			return;
	if (strcmp(real, "/") == 0 || iso->n == MAX_AREAS)
		return;
	/* Parents first: an overlay mounted on a directory inside another
	 * overlaid one must go on top of that overlay, not under it. */
	int k = iso->n;
	while (k > 0 && strlen(iso->a[k - 1].path) > strlen(real)) {
		iso->a[k] = iso->a[k - 1];
		k--;
	}
	memset(&iso->a[k], 0, sizeof(iso->a[k]));
	snprintf(iso->a[k].path, sizeof(iso->a[k].path), "%s", real);
	iso->a[k].lower = -1;
	iso->n++;
}

static void unmount_all(struct cts_iso *iso)
{
	for (int i = iso->n - 1; i >= 0; i--)
		if (iso->a[i].mounted) {
			umount2(iso->a[i].path, MNT_DETACH);
			iso->a[i].mounted = false;
		}
	if (iso->run_mounted) {
		umount2("run", MNT_DETACH);
		iso->run_mounted = false;
	}
}

/* In the namespace: a fresh tmpfs for the run's upper layers, then the
 * overlays, parents first. */
static int mount_all(struct cts_iso *iso)
{
	char up[32], work[32], opts[PATH_MAX + 96];

	unmount_all(iso);
	if (mount("cts-run", "run", "tmpfs", 0, "mode=0700") != 0)
		return -1;
	iso->run_mounted = true;
	for (int i = 0; i < iso->n; i++) {
		struct area *a = &iso->a[i];
		snprintf(up, sizeof(up), "run/u%d", i);
		snprintf(work, sizeof(work), "run/w%d", i);
		const struct timespec times[2] = { a->st.st_atim, a->st.st_mtim };
		if (mkdir(up, 0700) != 0 || mkdir(work, 0700) != 0 ||
		    chown(up, a->st.st_uid, a->st.st_gid) != 0 ||
		    chmod(up, a->st.st_mode & 07777) != 0 ||
		    utimensat(AT_FDCWD, up, times, 0) != 0)
			return -1;
		snprintf(opts, sizeof(opts), "lowerdir=/proc/self/fd/%d,upperdir=%s,workdir=%s",
			 a->lower, up, work);
		if (mount("cts-run", a->path, "overlay", 0, opts) != 0)
			return -1;
		a->mounted = true;
		if (stat(up, &a->up) != 0)
			return -1;
	}
	iso->gen++;
	return 0;
}

/* Did anything write in the overlays since they were mounted? Then the
 * upper layer's root holds an entry (a file, a copy made up, a whiteout)
 * or changed itself (chmod of the directory, an entry made and removed).
 * Read through the scratch fd, from outside the namespace. */
static bool touched(const struct cts_iso *iso)
{
	char up[32];
	struct stat st;

	if (!iso->run_mounted)
		return true;
	for (int i = 0; i < iso->n; i++) {
		const struct area *a = &iso->a[i];
		snprintf(up, sizeof(up), "run/u%d", i);
		int fd = openat(iso->scratch, up, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return true;
		DIR *d = fdopendir(fd);
		if (!d) {
			close(fd);
			return true;
		}
		bool changed = !a->mounted || fstat(fd, &st) != 0 || st.st_mode != a->up.st_mode ||
			       st.st_uid != a->up.st_uid || st.st_gid != a->up.st_gid ||
			       st.st_ctim.tv_sec != a->up.st_ctim.tv_sec ||
			       st.st_ctim.tv_nsec != a->up.st_ctim.tv_nsec ||
			       st.st_mtim.tv_sec != a->up.st_mtim.tv_sec ||
			       st.st_mtim.tv_nsec != a->up.st_mtim.tv_nsec;
		for (struct dirent *e; !changed && (e = readdir(d));)
			changed = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
		closedir(d);
		if (changed)
			return true;
	}
	return false;
}

unsigned cts_iso_generation(const struct cts_iso *iso)
{
	return iso->gen;
}

int cts_iso_reset(struct cts_iso *iso)
{
	if (!touched(iso))
		return 0; /* nothing to throw away: mounting again costs a millisecond */
	if (ns_in(iso) != 0)
		return -1;
	int rc = mount_all(iso);
	ns_out(iso);
	return rc;
}

/* The namespace, the scratch tmpfs and the lower directories' fds; cts-trace
 * is in the namespace on return 0 (ns_out brings it back). */
static int make_namespace(struct cts_iso *iso, char *why, size_t whylen)
{
	if (unshare(CLONE_NEWNS) != 0) {
		snprintf(why, whylen, "cannot make a mount namespace (%s): run as root, or with "
			 "CAP_SYS_ADMIN", strerror(errno));
		return -1;
	}
	iso->unshared = true;
	/* Our mounts must not propagate back to the namespace we came from. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    (iso->ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(why, whylen, "cannot make a private mount namespace: %s", strerror(errno));
		return -1;
	}
	if (mount("cts-iso", iso->scratch_path, "tmpfs", 0, "mode=0700") != 0 ||
	    (iso->scratch = open(iso->scratch_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    mkdirat(iso->scratch, "run", 0700) != 0) {
		snprintf(why, whylen, "cannot mount a tmpfs on %s: %s", iso->scratch_path,
			 strerror(errno));
		return -1;
	}
	for (int i = 0; i < iso->n; i++) {
		struct area *a = &iso->a[i];
		a->lower = open(a->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (a->lower < 0 || fstat(a->lower, &a->st) != 0) {
			snprintf(why, whylen, "cannot open %s: %s", a->path, strerror(errno));
			return -1;
		}
	}
	if (fchdir(iso->scratch) != 0) {
		snprintf(why, whylen, "cannot enter %s: %s", iso->scratch_path, strerror(errno));
		return -1;
	}
	return 0;
}

struct cts_iso *cts_iso_new(char *why, size_t whylen)
{
	struct cts_iso *iso = cts_xcalloc(1, sizeof(*iso));
	char cwd[PATH_MAX];
	const char *tmp = getenv("TMPDIR");

	iso->ns = iso->home_ns = iso->home_cwd = iso->scratch = -1;
	for (int i = 0; i < MAX_AREAS; i++)
		iso->a[i].lower = -1;
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if (!getcwd(cwd, sizeof(cwd))) {
		snprintf(why, whylen, "cannot name the working directory: %s", strerror(errno));
		goto fail;
	}
	add_area(iso, cwd);
	add_area(iso, tmp);
	add_area(iso, "/dev/shm");
	iso->cwd_area = -1;
	for (int i = 0; i < iso->n; i++)
		if (strcmp(iso->a[i].path, cwd) == 0)
			iso->cwd_area = i;
	size_t off = 0;
	for (int i = 0; i < iso->n; i++)
		off += (size_t)snprintf(iso->desc + off, sizeof(iso->desc) - off, "%s%s",
					i == 0 ? "" : i + 1 == iso->n ? " and " : ", ", iso->a[i].path);
	snprintf(iso->scratch_path, sizeof(iso->scratch_path), "%s/cts-iso.XXXXXX", tmp);
	if (!mkdtemp(iso->scratch_path)) {
		snprintf(why, whylen, "cannot make a directory in %s: %s", tmp, strerror(errno));
		iso->scratch_path[0] = 0;
		goto fail;
	}
	iso->home_ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	iso->home_cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (iso->home_ns < 0 || iso->home_cwd < 0) {
		snprintf(why, whylen, "cannot open /proc/self/ns/mnt or the working directory: %s",
			 strerror(errno));
		goto fail;
	}
	int rc = make_namespace(iso, why, whylen);
	if (rc == 0 && mount_all(iso) != 0) {
		snprintf(why, whylen, "cannot mount an overlay on %s: %s", iso->desc, strerror(errno));
		rc = -1;
	}
	if (iso->unshared)
		ns_out(iso);
	if (rc != 0)
		goto fail;
	return iso;
fail:
	cts_iso_free(iso);
	return NULL;
}

void cts_iso_free(struct cts_iso *iso)
{
	if (!iso)
		return;
	/* Not needed for the files (the namespace goes with its last process
	 * and fd), but a run's process left alive would keep them. */
	if (iso->ns >= 0 && iso->scratch >= 0 && ns_in(iso) == 0) {
		unmount_all(iso);
		ns_out(iso);
	}
	for (int i = 0; i < iso->n; i++)
		if (iso->a[i].lower >= 0)
			close(iso->a[i].lower);
	int fds[] = { iso->ns, iso->home_ns, iso->home_cwd, iso->scratch };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (iso->scratch_path[0])
		rmdir(iso->scratch_path); /* outside the namespace: an empty directory */
	free(iso);
}

int cts_iso_child_enter(const struct cts_iso *iso)
{
	if (setns(iso->ns, CLONE_NEWNS) != 0)
		return -1;
	/* setns put the cwd at the namespace's root */
	if (iso->cwd_area >= 0)
		return chdir(iso->a[iso->cwd_area].path);
	return fchdir(iso->home_cwd) == 0 || chdir("/") == 0 ? 0 : -1;
}

int cts_iso_chdir_tracee(const struct cts_iso *iso, pid_t pid,
			 const struct user_regs_struct *regs, unsigned long code)
{
	if (iso->cwd_area < 0)
		return 0;
	/* The path goes below the red zone of the stopped thread's stack, and
	 * the bytes there are put back. */
	const char *path = iso->a[iso->cwd_area].path;
	size_t len = strlen(path) + 1;
	uint64_t at = (regs->rsp - 256 - len) & ~15ull;
	char saved[PATH_MAX];
	if (cts_mem_read(pid, at, saved, len) != 0 || cts_mem_write_data(pid, at, path, len) != 0)
		return -1;
	const uint64_t args[6] = { at };
	int64_t ret = -1;
	int rc = cts_inject_syscall(pid, regs, code, SYS_chdir, args, &ret);
	cts_mem_write_data(pid, at, saved, len);
	if (rc == 0 && ret != 0) {
		errno = (int)-ret;
		rc = -1;
	}
	return rc;
}

int cts_iso_enter(struct cts_iso *iso)
{
	if (setns(iso->ns, CLONE_NEWNS) != 0)
		return -1;
	if (iso->cwd_area >= 0 && chdir(iso->a[iso->cwd_area].path) != 0) {
		ns_out(iso);
		return -1;
	}
	if (iso->cwd_area < 0 && fchdir(iso->home_cwd) != 0) {
		ns_out(iso);
		return -1;
	}
	return 0;
}

void cts_iso_leave(struct cts_iso *iso)
{
	ns_out(iso);
}

const char *cts_iso_describe(const struct cts_iso *iso)
{
	return iso->desc;
}
