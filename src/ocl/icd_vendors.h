#pragma once
// Where the ICD loader looks for OpenCL drivers, and NVIDIA's driver where the host has its
// library but no ICD file (containers and HPC nodes often mount libnvidia-opencl.so.1 without
// /etc/OpenCL/vendors/nvidia.icd): such a driver is registered in a private vendor folder that
// OCL_ICD_VENDORS names, for this process and the workers it starts.
#include <string>
#include <vector>

namespace tt::ocl {

struct IcdSearch {
  std::string vendors_dir = "/etc/OpenCL/vendors";  // the ICD loader's default folder
  std::vector<std::string> library_dirs;            // where to look for libnvidia-opencl.so.1
  std::string private_root;                         // under which the private vendor folder is made
};

// The folders a host keeps NVIDIA's driver libraries in: container mounts, the distribution's
// library folders, and $LD_LIBRARY_PATH.
IcdSearch DefaultIcdSearch();

struct IcdReport {
  std::string overridden_by;              // OCL_ICD_VENDORS as set by the user (nothing done then)
  std::vector<std::string> nvidia_found;  // libnvidia-opencl.so.1 files found
  bool nvidia_listed = false;             // an .icd file of the vendor folder names NVIDIA's library
  std::string registered_in;              // the private vendor folder made, when one was
  std::string problem;                    // why registering failed, if it did
};

// Registers an unlisted NVIDIA driver (see above) unless OCL_ICD_VENDORS is set; sets
// OCL_ICD_VENDORS when it registers. Never throws: what it found and did is in the report.
IcdReport RegisterUnlistedNvidiaDriver(const IcdSearch& search);

// The same with DefaultIcdSearch(), done once per process before the first OpenCL call.
const IcdReport& EnsureIcdVendors();

}  // namespace tt::ocl
