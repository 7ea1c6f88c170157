#include <cstring>

#include "task.hpp"

namespace headwise::tasks {

extern const Task kVerbNounTask, kVerbTask, kOrderTask, kInductionTask;
extern const Task kStoryTask;  // story.cpp

namespace {
const Task* const kTasks[] = {
    &kVerbNounTask, &kVerbTask, &kOrderTask, &kInductionTask, &kStoryTask, nullptr,
};
}  // namespace

const Task* const* task_list() { return kTasks; }

const Task* find_task(const char* name) {
  for (const Task* const* t = kTasks; *t; ++t)
    if (std::strcmp((*t)->name, name) == 0) return *t;
  return nullptr;
}

}  // namespace headwise::tasks
