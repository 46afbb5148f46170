#pragma once
// Symbols of the installed tensortune libraries; everything else in them is hidden.
#if defined(_WIN32)
#define TENSORTUNE_API
#else
#define TENSORTUNE_API __attribute__((visibility("default")))
#endif
