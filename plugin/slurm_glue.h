// Slurm's allocator and logger, resolved at load time from slurmctld (which links libslurmfull).
// The plugin never links a Slurm library itself: a second copy of Slurm's internals in the process
// would have its own allocator state. Prototypes are stable from 22.05 to 25.05.
#pragma once

#include <cstddef>

extern "C" {
void *slurm_xcalloc(size_t count, size_t size, bool clear, bool try_only, const char *file, int line,
                    const char *func);
void slurm_xfree(void **ptr);
char *slurm_xstrdup(const char *str);
void slurm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void slurm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void slurm_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void slurm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *slurm_get_extra_conf_path(char *file_name);
}

// slurmctld's parsed slurm.conf (public type, exported data symbol).
#include <slurm/slurm.h>
extern "C" slurm_conf_t slurm_conf;
