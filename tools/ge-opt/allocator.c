// ge-opt's defaults for mimalloc (its global allocator, see tools/ge-opt/allocator.rs).
// Compiled by build.rs against the header of the mimalloc the `mimalloc` crate builds, so
// the options are named, not numbered.
#include <mimalloc.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

// Options the user set through the environment win: `mi_option_set_default` leaves an
// option read from `MIMALLOC_*` alone.
void ge_mimalloc_defaults(void) {
  // Keep freed memory instead of returning it to the OS 10 ms later: a pass frees its
  // model and the next allocates a new one, and every purged page is faulted in (and
  // zeroed by the kernel) again.
  mi_option_set_default(mi_option_purge_delay, -1);
  if (getenv("MIMALLOC_ALLOW_THP") != NULL || getenv("mimalloc_allow_thp") != NULL) {
    return;
  }
  mi_option_set_default(mi_option_allow_thp, 0);
#if defined(__linux__) && defined(PR_SET_THP_DISABLE)
  // mimalloc applies `allow_thp = 0` with this prctl only when it reads the option at
  // start-up; the arenas it mapped before `main` were already advised for huge pages.
  (void)prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
#endif
}
