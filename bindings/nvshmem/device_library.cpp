// libnvshmem_device.a: the name NVSHMEM's Makefiles and CMake targets link (-lnvshmem_device).
// Symmetra needs no device library: each CUDA translation unit that includes nvshmem.h holds
// its own copy of the device state (docs/nvshmem.md), so this archive holds only a marker.
extern "C" {
extern const int symmetrai_nvshmem_device_library;
const int symmetrai_nvshmem_device_library = 1;
}
