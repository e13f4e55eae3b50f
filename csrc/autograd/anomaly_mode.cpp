#include "autograd/anomaly_mode.hpp"

#include <atomic>

#include "autograd/node.hpp"

namespace ember::autograd {

namespace {
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_check_nan{true};
std::atomic<AnomalyTraceSource> g_trace_source{nullptr};
std::atomic<AnomalyReporter> g_reporter{nullptr};
}  // namespace

bool AnomalyMode::is_enabled() noexcept { return g_enabled.load(std::memory_order_relaxed); }

bool AnomalyMode::should_check_nan() noexcept {
  return g_check_nan.load(std::memory_order_relaxed);
}

void AnomalyMode::set_enabled(bool enabled, bool check_nan) noexcept {
  g_check_nan.store(check_nan, std::memory_order_relaxed);
  g_enabled.store(enabled, std::memory_order_relaxed);
}

void set_anomaly_trace_source(AnomalyTraceSource source) noexcept { g_trace_source.store(source); }
void set_anomaly_reporter(AnomalyReporter reporter) noexcept { g_reporter.store(reporter); }

std::string anomaly_trace_now() {
  AnomalyTraceSource source = g_trace_source.load();
  return source ? source() : std::string();
}

void report_anomaly(const Node& node) {
  AnomalyReporter reporter = g_reporter.load();
  if (reporter) reporter(node.name(), node.anomaly_trace);
}

}  // namespace ember::autograd
