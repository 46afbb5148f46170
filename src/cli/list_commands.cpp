#include "cli/list_commands.h"

#include <fmt/format.h>

#include <ostream>

#include "ocl/devices.h"
#include "ocl/icd_vendors.h"
#include "ops/kernel_template.h"
#include "tuners/tuner_factory.h"
#include "warmstart/flow.h"

namespace tt {

namespace {

void DescribeIcdVendors(const ocl::IcdReport& icd, bool no_devices, std::ostream& out) {
  if (!icd.overridden_by.empty()) out << "OpenCL drivers listed by OCL_ICD_VENDORS=" << icd.overridden_by << "\n";
  if (!icd.registered_in.empty())
    out << "NVIDIA's OpenCL driver " << icd.nvidia_found.front() << " had no ICD file: registered in "
        << icd.registered_in << " for this run (elsewhere: export OCL_ICD_VENDORS=" << icd.registered_in << ")\n";
  if (!icd.problem.empty())
    out << "NVIDIA's OpenCL driver " << icd.nvidia_found.front() << " has no ICD file and could not be registered ("
        << icd.problem << "): write its path into a .icd file of a folder and export OCL_ICD_VENDORS=that folder\n";
  if (!no_devices) return;
  if (icd.nvidia_found.empty())
    out << "no OpenCL device found: no OpenCL driver (ICD) is installed (on Debian: apt-get install "
           "pocl-opencl-icd for the CPU; NVIDIA's driver brings libnvidia-opencl.so.1)\n";
  else
    out << "no OpenCL device found: the drivers the ICD loader opened list no device\n";
}

}  // namespace

int RunDevices(std::ostream& out) {
  const auto devices = ListDevices();
  out << fmt::format("{:>5}  {:<28} {:<36} {:<5} {:>4} {:>8} {:>10}\n", "index", "platform", "device", "type", "CUs",
                     "max-wg", "local-mem");
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    out << fmt::format("{:>5}  {:<28} {:<36} {:<5} {:>4} {:>8} {:>8} KiB\n", i, d.platform, d.name, d.type,
                       d.compute_units, d.max_work_group_size, d.local_mem_bytes / 1024);
  }
  DescribeIcdVendors(ocl::EnsureIcdVendors(), devices.empty(), out);
  return devices.empty() ? 3 : 0;
}

int RunTemplates(std::ostream& out) {
  for (const auto& op : Operators()) {
    out << fmt::format("{}: {}\n  --shape {}\n", op.name, op.description, op.shape_syntax);
    for (const auto* t : TemplatesFor(op.name))
      out << fmt::format("  template {:<24} {}\n", t->name(), t->description());
  }
  return 0;
}

namespace {

void PrintTuner(std::ostream& out, const TunerDoc& tuner) {
  out << fmt::format("{}: {}\n", tuner.name, tuner.summary);
  if (tuner.options.empty()) out << "  no options\n";
  for (const OptionDoc& o : tuner.options)
    out << fmt::format("  {:<21} {}; default {}: {}\n", o.key, o.values, o.default_value, o.help);
}

}  // namespace

int RunTuners(std::ostream& out) {
  std::vector<OptionDoc> flow_options = DocumentOptionTable(FlowOptions::Table());
  flow_options.push_back(
      {"gga.KEY, xgb-tl.KEY", "that tuner's KEY=value", "none", "passed on to the tuner the flow takes"});
  PrintTuner(out, {"auto", "chooses gga or xgb-tl per task from the history, and says why", flow_options});
  for (const TunerDoc& tuner : TunerDocs()) PrintTuner(out, tuner);
  return 0;
}

}  // namespace tt
