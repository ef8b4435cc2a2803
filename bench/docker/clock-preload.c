// LD_PRELOAD library for bench/sandbox-clock.js. Counts the main thread's CLOCK_MONOTONIC reads
// (V8's compile and GC timers, libuv's loop time) and prints the count to stderr at exit. With
// CLOCK_PRELOAD_FAST=1 it answers them from the CPU's time-stamp counter, asking the kernel only
// every 256th read to keep the rate right: what a start would cost if those reads were free.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <x86intrin.h>

static int (*kernel_clock)(clockid_t, struct timespec *);
static int fast = -1;
static unsigned long reads, fromTsc;
static unsigned long long baseTsc, baseNs;
static double nsPerTick;

static unsigned long long toNs(const struct timespec *t) { return t->tv_sec * 1000000000ULL + t->tv_nsec; }

int clock_gettime(clockid_t clock, struct timespec *t) {
  if (!kernel_clock) kernel_clock = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  // Whether this is the main thread, asked once per thread: gettid and getpid are system calls too.
  static __thread int mainThread = -1;
  if (mainThread < 0) mainThread = syscall(SYS_gettid) == getpid();
  if (clock != CLOCK_MONOTONIC || !mainThread) return kernel_clock(clock, t);
  if (fast < 0) { const char *f = getenv("CLOCK_PRELOAD_FAST"); fast = f && !strcmp(f, "1"); }
  reads++;
  unsigned long long tsc = __rdtsc();
  if (!fast || nsPerTick == 0 || reads % 256 == 0) {
    int r = kernel_clock(clock, t);
    unsigned long long ns = toNs(t);
    if (!baseTsc) { baseTsc = tsc; baseNs = ns; }
    else if (tsc > baseTsc && ns > baseNs) nsPerTick = (double)(ns - baseNs) / (double)(tsc - baseTsc);
    return r;
  }
  unsigned long long ns = baseNs + (unsigned long long)((double)(tsc - baseTsc) * nsPerTick);
  t->tv_sec = ns / 1000000000ULL;
  t->tv_nsec = ns % 1000000000ULL;
  fromTsc++;
  return 0;
}

__attribute__((destructor)) static void report(void) {
  char line[96];
  int n = snprintf(line, sizeof line, "clock-preload reads %lu from-tsc %lu\n", reads, fromTsc);
  if (n > 0) { ssize_t w = write(2, line, (size_t)n); (void)w; }
}
