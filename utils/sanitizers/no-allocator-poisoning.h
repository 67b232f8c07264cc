//===- no-allocator-poisoning.h - force-included in sanitizer builds ------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Under ASan, LLVM's headers poison the unused part of each
// BumpPtrAllocator slab and unpoison each allocation. Debian's libMLIR.so is
// not instrumented: when our (instrumented, inlined) code starts a slab and
// the library allocates from it, the library never unpoisons, and the next
// intercepted memcpy into that memory is a false "use-after-poison" report.
// Declaring the functions first and then defining them away keeps the
// headers' manual poisoning out of our code; real out-of-bounds accesses
// are still caught by the instrumentation.
//
//===----------------------------------------------------------------------===//

#ifndef MS_UTILS_SANITIZERS_NO_ALLOCATOR_POISONING_H
#define MS_UTILS_SANITIZERS_NO_ALLOCATOR_POISONING_H

#if defined(__has_include)
#if __has_include(<sanitizer/asan_interface.h>)
#include <sanitizer/asan_interface.h>
#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#define __asan_unpoison_memory_region(p, size) ((void)(p), (void)(size))
#endif
#endif

#endif // MS_UTILS_SANITIZERS_NO_ALLOCATOR_POISONING_H
