#pragma once
// The threads of a CPU OpenCL driver (POCL), set up before a process's first OpenCL call.
#include <set>

namespace tt::ocl {

// A CPU OpenCL driver runs kernels on threads of its own, and POCL keeps the values that live
// across a barrier in stack arrays sized by the work-group: a large work-group with local
// memory overflows the default 8 MiB thread stack. Every process that runs kernels (the
// measuring worker, and tensortune's commands that run tuned kernels in-process, such as
// run-network) gives the threads it creates from then on this much, before its first OpenCL
// call, so that a config the worker measured also runs where it is used.
void EnlargeDriverThreadStacks();

// The CPUs this process may run on (its affinity mask: taskset, cgroup cpusets).
std::set<int> AllowedCpus();

// Whether POCL's worker threads may be pinned one per core (POCL_AFFINITY=1 pins worker i to
// CPU i whatever the process's affinity): only where the user has not chosen (POCL_AFFINITY
// unset) and every core it would pin a worker to, 0 to threads - 1, is one the process may
// run on. threads: POCL_MAX_PTHREAD_COUNT where set (not a positive number: no), else the
// online cores, as POCL counts them (it ignores the process's affinity).
bool MayPinPoclWorkers(const char* pocl_affinity, const char* pocl_max_threads, const std::set<int>& allowed_cpus,
                       int online_cpus);

// Sets POCL_AFFINITY=1 where MayPinPoclWorkers says so for this process, once, before the
// driver starts its threads. Unpinned, POCL's two workers on a two-core machine ran a kernel
// at one thread's speed for whole runs in some processes and at two threads' in others (most
// likely both woken on one core; docs/architecture.md, "CPU driver threads").
void PinPoclWorkersWherePossible();
bool MayPinPoclWorkersHere();  // MayPinPoclWorkers for this process's environment and cores

// For a process that builds kernels beside others (a measurer's builders): POCL_AFFINITY=0
// where unset, before the first OpenCL call. POCL generates a kernel's code on the driver
// thread that first runs it; pinned, two builders' code generation could share one core while
// the other idled (ResNet-18 tuned at two threads: 389 s against 327 unpinned; notebook, 2026-11-29).
void LeavePoclWorkersUnpinned();

}  // namespace tt::ocl
