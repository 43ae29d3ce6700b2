// The runner registry behind opgen::runner_create / runner_apply /
// runner_destroy: host-side runner objects addressed from Python by an
// opaque int64 id (the "runner registry" pattern of TensorRT-LLM / vLLM-style
// libraries, with validated ids instead of raw pointers cast to int).
//
// A runner here is the state y = x * scale + shift; a real one would hold a
// plan, a workspace or a communicator. Lookups hand out shared_ptrs, so a
// runner destroyed while another thread applies it stays alive until that
// call has queued its work (the kernels take its values by copy).
// Standard headers only.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace opgen::kernels::runners {

struct Runner {
  double scale;
  double shift;
};

class Registry {
 public:
  static Registry& instance() {
    static Registry registry;  // one per process: an inline function's static
    return registry;
  }

  int64_t add(Runner runner) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int64_t id = next_id_++;
    runners_.emplace(id, std::make_shared<const Runner>(runner));
    return id;
  }

  // nullptr when `id` names no live runner.
  std::shared_ptr<const Runner> find(int64_t id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = runners_.find(id);
    return it == runners_.end() ? nullptr : it->second;
  }

  bool remove(int64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    return runners_.erase(id) > 0;
  }

 private:
  Registry() = default;
  mutable std::mutex mutex_;
  int64_t next_id_ = 1;  // ids are never reused
  std::unordered_map<int64_t, std::shared_ptr<const Runner>> runners_;
};

}  // namespace opgen::kernels::runners
