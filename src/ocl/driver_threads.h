#pragma once
// A CPU OpenCL driver runs kernels on threads of its own, and POCL keeps the values that live
// across a barrier in stack arrays sized by the work-group: a large work-group with local
// memory overflows the default 8 MiB thread stack. Every process that runs kernels (the
// measuring worker, and tensortune's commands that run tuned kernels in-process, such as
// run-network) gives the threads it creates from then on this much, before its first OpenCL
// call, so that a config the worker measured also runs where it is used.

namespace tt::ocl {

void EnlargeDriverThreadStacks();

}  // namespace tt::ocl
