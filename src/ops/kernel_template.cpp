#include "ops/kernel_template.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace tt {
namespace embedded {
extern const std::pair<std::string_view, std::string_view> kernels[];
extern const std::size_t kernels_count;
}  // namespace embedded

std::string_view KernelSource(std::string_view file) {
  for (size_t i = 0; i < embedded::kernels_count; ++i)
    if (embedded::kernels[i].first == file) return embedded::kernels[i].second;
  throw std::logic_error("no embedded kernel source '" + std::string(file) + "'");
}

std::string JoinKernelSources(std::initializer_list<std::string_view> files) {
  std::string text;
  for (std::string_view file : files) text += KernelSource(file);
  return text;
}

size_t ElementCount(std::initializer_list<int64_t> extents) {
  size_t product = 1;
  for (const int64_t extent : extents)
    if (extent < 0 || __builtin_mul_overflow(product, static_cast<size_t>(extent), &product)) return SIZE_MAX;
  return product;
}

std::vector<int64_t> FloatVectorWidths(const DeviceLimits& limits, int64_t from) {
  const int64_t widest = limits.native_float_width == 0 ? 16 : std::clamp<int64_t>(limits.native_float_width, from, 16);
  std::vector<int64_t> widths;
  for (int64_t w = from; w <= widest; w *= 2) widths.push_back(w);
  return widths;
}

DeviceLimits LimitsOf(const DeviceInfo& device) {
  DeviceLimits limits = kNoDeviceLimits;
  if (device.max_work_group_size > 0) limits.max_work_group_size = device.max_work_group_size;
  if (device.local_mem_bytes > 0) limits.local_mem_bytes = device.local_mem_bytes;
  limits.native_float_width = device.native_float_width;
  return limits;
}

std::string KernelTemplate::SourceHash() const { return TextHash(KernelCode(source())); }

namespace {

// C's translation phase 2: a backslash at the end of a line joins it to the next.
std::string JoinContinuedLines(std::string_view source) {
  std::string joined;
  joined.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\\' && source.substr(i + 1, 1) == "\n") {
      ++i;
    } else if (source[i] == '\\' && source.substr(i + 1, 2) == "\r\n") {
      i += 2;
    } else {
      joined += source[i];
    }
  }
  return joined;
}

}  // namespace

std::string KernelCode(std::string_view source) {
  const std::string text = JoinContinuedLines(source);
  std::string code;
  bool space = false;  // whitespace or a comment since the last token on this line
  const auto put = [&](char c) {
    if (space && !code.empty() && code.back() != '\n') code += ' ';
    space = false;
    code += c;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '/' && next == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      space = true;
    } else if (c == '/' && next == '*') {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 1;
      space = true;
    } else if (c == '"' || c == '\'') {  // a literal stays as written, up to its closing quote
      put(c);
      for (++i; i < text.size() && text[i] != c && text[i] != '\n'; ++i) {
        code += text[i];
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n') code += text[++i];
      }
      if (i < text.size() && text[i] == c)
        code += c;
      else
        --i;  // unterminated: the line ends it
    } else if (c == '\n') {
      if (!code.empty() && code.back() != '\n') code += '\n';
      space = false;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      space = true;
    } else {
      put(c);
    }
  }
  if (!code.empty() && code.back() == '\n') code.pop_back();
  return code;
}

std::string TextHash(std::string_view text) {
  // FNV-1a: enough to tell template revisions apart in the history.
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : text) h = (h ^ ch) * 0x100000001b3ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace tt
