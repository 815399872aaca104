// Host reads and writes of this PE's own symmetric memory that work on either backend: on the
// CPU backend the heap is host memory; on the GPU backend it is device memory, reached with
// get/put to this PE (copies through the library). The API tests use these wherever they touch
// their own symmetric words, so one test source runs on both backends.
#pragma once

#include <cstddef>
#include <vector>

#include "symmetra/runtime.hpp"

namespace symmetra::testing {

template <class T>
T ld(Runtime& rt, const T* p) {
  T v{};
  rt.getmem(&v, p, sizeof(T), rt.my_pe());
  return v;
}

template <class T>
void st(Runtime& rt, T* p, T v) {
  rt.putmem(p, &v, sizeof(T), rt.my_pe());
}

template <class T>
std::vector<T> ld(Runtime& rt, const T* p, std::size_t n) {
  std::vector<T> v(n);
  if (n != 0) rt.getmem(v.data(), p, n * sizeof(T), rt.my_pe());
  return v;
}

template <class T>
void st(Runtime& rt, T* p, const std::vector<T>& v) {
  if (!v.empty()) rt.putmem(p, v.data(), v.size() * sizeof(T), rt.my_pe());
}

template <class T>
void fill(Runtime& rt, T* p, std::size_t n, T value) {
  st(rt, p, std::vector<T>(n, value));
}

}  // namespace symmetra::testing
