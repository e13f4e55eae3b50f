// The backward pass: runs the graph from the given outputs back to the
// leaves (or to the given inputs), on the calling thread.
//
// - Dependencies are counted first (a node runs once every node that sends it
//   a gradient has run); ready nodes run in decreasing sequence number, so the
//   order is the reverse of the forward's where it is free to choose.
// - Gradients arriving at the same node input are summed; undefined gradients
//   of a node's other inputs become zeros; a node none of whose inputs got a
//   gradient is skipped (its edges just count down).
// - Each gradient is checked against what the receiving node expects: summed
//   to its shape when it broadcasts to it, converted to its dtype, RuntimeError
//   for another device (torch's validate_outputs).
// - Streams: a node runs with the stream its forward ran on made current
//   (Node::stream); a gradient made on another stream is waited for on the GPU
//   before use. AccumulateGrad runs on the stream of the gradient it gets. At
//   the end the caller's current streams wait for every stream backward used,
//   so work queued after backward() sees the gradients, as in torch.
// - Without keep_graph every node frees its saved tensors after running.
// - Grad mode during the pass is create_graph, so formulas record a graph of
//   their own when asked to.
// The caller releases the GIL; Python hooks take it back.
#pragma once

#include <vector>

#include "autograd/node.hpp"

namespace ember::autograd {

struct BackwardOptions {
  bool keep_graph = false;
  bool create_graph = false;
  // true: gradients go into the leaves' .grad (Tensor.backward); false: they
  // are returned for `inputs` (autograd.grad).
  bool accumulate_grad = true;
  bool allow_unused = false;
};

// outputs[i] gets gradient grad_outputs[i] (undefined: ones for a
// one-element output, RuntimeError otherwise). With `inputs`, only the part of
// the graph leading to them runs and their gradients are returned (and, with
// accumulate_grad, added into their .grad instead of every leaf's).
TensorList run_backward(const TensorList& outputs, const TensorList& grad_outputs,
                        const TensorList& inputs, const BackwardOptions& options);

}  // namespace ember::autograd
