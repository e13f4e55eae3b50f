// gather and scatter_ with autograd (formulas_scatter.cpp): the two
// primitives of the index_* family (ops/index/scatter_gather.hpp). Declared
// apart from functions.hpp so that adding them recompiled only their users.
//
// Gradients (torch's): gather's is a scatter-add of the gradient into zeros;
// a plain scatter's is the gradient with the written places zeroed for self,
// and the gradient gathered at the index for src; scatter-add passes the
// gradient to self and gathers it for src. The multiplying and max/min
// reductions are differentiated by their Python composites
// (python/ember/_composite_index.py); here they raise when grad is needed.
#pragma once

#include "ops/index/scatter_gather.hpp"
#include "tensor/tensor.hpp"

namespace ember::autograd {

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, const ops::IndexRule& rule,
              const Tensor& out = Tensor());
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
              ops::ScatterReduce reduce, const ops::IndexRule& rule, bool src_is_value = false);

}  // namespace ember::autograd
