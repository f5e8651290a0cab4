// KernelTrace on CUPTI's activity API (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL).
//
// libcupti.so is loaded at run time from the bundle's lib/ folder, never from the system: the
// layout of the activity records we read (CUpti_ActivityKernel10) is that of the CUPTI headers
// this file was compiled with, which the bundle builder guarantees by copying the library that
// sits next to those headers. A CUPTI that fails to load leaves the runner working without
// per-kernel times.
//
// CUPTI hands records over in buffers that we provide (buffer_requested) and that it returns
// full (buffer_completed), possibly from its own thread; completed buffers are parsed at once
// under a mutex.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include <cupti.h>

#include "kernel_trace.h"

namespace hlsched::bench {
namespace {

constexpr size_t kBufferBytes = 8 << 20;
constexpr size_t kBufferAlignment = 8;

struct CuptiApi {
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
};

CuptiApi api;
std::mutex records_mutex;
std::vector<KernelRecord> records;  // guarded by records_mutex
size_t dropped = 0;                 // guarded by records_mutex

void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(records_mutex);
  CUpti_Activity *record = nullptr;
  while (api.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    const auto *kernel = reinterpret_cast<const CUpti_ActivityKernel10 *>(record);
    KernelRecord r;
    r.name = kernel->name ? kernel->name : "?";
    r.start_ns = kernel->start;
    r.end_ns = kernel->end;
    r.grid[0] = kernel->gridX, r.grid[1] = kernel->gridY, r.grid[2] = kernel->gridZ;
    r.block[0] = kernel->blockX, r.block[1] = kernel->blockY, r.block[2] = kernel->blockZ;
    r.registers_per_thread = kernel->registersPerThread;
    r.shared_memory_bytes = kernel->staticSharedMemory + kernel->dynamicSharedMemory;
    r.local_memory_bytes_per_thread = int(kernel->localMemoryPerThread);
    r.shared_memory_executed_bytes = int(kernel->sharedMemoryExecuted);
    records.push_back(std::move(r));
  }
  size_t lost = 0;
  if (api.dropped_records(context, stream, &lost) == CUPTI_SUCCESS) dropped += lost;
  std::free(buffer);
}

class CuptiKernelTrace : public KernelTrace {
public:
  void start() override {
    {
      std::lock_guard<std::mutex> lock(records_mutex);
      records.clear();
      dropped = 0;
    }
    check(api.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable");
  }

  std::vector<KernelRecord> stop() override {
    check(api.flush_all(1), "cuptiActivityFlushAll");
    check(api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityDisable");
    check(api.flush_all(1), "cuptiActivityFlushAll");
    std::lock_guard<std::mutex> lock(records_mutex);
    if (dropped) throw std::runtime_error("CUPTI dropped " + std::to_string(dropped) + " kernel records");
    std::vector<KernelRecord> out;
    out.swap(records);
    std::sort(out.begin(), out.end(), [](const KernelRecord &a, const KernelRecord &b) { return a.start_ns < b.start_ns; });
    return out;
  }

private:
  static void check(CUptiResult result, const char *what) {
    if (result == CUPTI_SUCCESS) return;
    const char *text = "?";
    api.result_string(result, &text);
    throw std::runtime_error(std::string(what) + " failed: " + text);
  }
};

template <typename Fn>
bool resolve(void *library, const char *symbol, Fn &slot, std::string &why_not) {
  slot = reinterpret_cast<Fn>(::dlsym(library, symbol));
  if (!slot) why_not = std::string("libcupti has no ") + symbol;
  return slot != nullptr;
}

}  // namespace

std::unique_ptr<KernelTrace> KernelTrace::create(const std::string &library_dir, std::string &why_not) {
  const std::string path = library_dir + "/libcupti.so";
  void *library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    why_not = std::string("cannot load ") + path + ": " + ::dlerror();
    return nullptr;
  }
  if (!resolve(library, "cuptiActivityRegisterCallbacks", api.register_callbacks, why_not) ||
      !resolve(library, "cuptiActivityEnable", api.enable, why_not) ||
      !resolve(library, "cuptiActivityDisable", api.disable, why_not) ||
      !resolve(library, "cuptiActivityFlushAll", api.flush_all, why_not) ||
      !resolve(library, "cuptiActivityGetNextRecord", api.next_record, why_not) ||
      !resolve(library, "cuptiActivityGetNumDroppedRecords", api.dropped_records, why_not) ||
      !resolve(library, "cuptiGetResultString", api.result_string, why_not))
    return nullptr;
  if (const CUptiResult result = api.register_callbacks(buffer_requested, buffer_completed); result != CUPTI_SUCCESS) {
    const char *text = "?";
    api.result_string(result, &text);
    why_not = std::string("cuptiActivityRegisterCallbacks failed: ") + text;
    return nullptr;
  }
  return std::make_unique<CuptiKernelTrace>();
}

}  // namespace hlsched::bench
