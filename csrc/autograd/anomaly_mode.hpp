// Anomaly mode (torch.autograd.set_detect_anomaly / detect_anomaly): while it
// is on, every node records where its forward ran (a Python traceback, asked
// of the bindings through `set_anomaly_trace_source`), and the engine checks
// each node's gradients for NaN (torch's "Function 'MulBackward0' returned
// nan values in its 0th output."). When a node fails, the bindings' reporter
// is told (torch's "Error detected in MulBackward0. Traceback of forward call
// that caused the error" warning) before the error propagates.
//
// The flag is process-wide, as torch's; reading it is one relaxed load.
#pragma once

#include <string>

namespace ember::autograd {

class Node;

struct AnomalyMode {
  static bool is_enabled() noexcept;
  static bool should_check_nan() noexcept;
  static void set_enabled(bool enabled, bool check_nan = true) noexcept;
};

// Where a node's forward ran: the bindings give the Python stack (called with
// or without the GIL held; the function takes it). Null: nothing is recorded.
using AnomalyTraceSource = std::string (*)();
void set_anomaly_trace_source(AnomalyTraceSource source) noexcept;
// Called with a node whose backward failed and the trace its forward recorded.
using AnomalyReporter = void (*)(const std::string& node_name, const std::string& trace);
void set_anomaly_reporter(AnomalyReporter reporter) noexcept;

// The trace of the current forward call (empty when anomaly mode is off).
std::string anomaly_trace_now();
// Reports a failure of `node` (anomaly mode on, a reporter set).
void report_anomaly(const Node& node);

}  // namespace ember::autograd
