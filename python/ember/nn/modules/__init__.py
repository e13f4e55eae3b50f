from ember.nn.modules.module import Module, RemovableHandle
from ember.nn.modules.container import (Sequential, ModuleList, ModuleDict, ParameterList,
                                        ParameterDict)
from ember.nn.modules.linear import Identity, Linear
from ember.nn.modules.activation import (ReLU, GELU, SiLU, Sigmoid, Tanh, Softmax, LogSoftmax,
                                         LeakyReLU, ELU, Softplus)
from ember.nn.modules.dropout import Dropout, Flatten, Unflatten
from ember.nn.modules.conv import Conv2d
from ember.nn.modules.pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
from ember.nn.modules.loss import (MSELoss, L1Loss, CrossEntropyLoss, NLLLoss, BCEWithLogitsLoss,
                                   BCELoss)
from ember.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from ember.nn.modules.normalization import LayerNorm
from ember.nn.modules.sparse import Embedding

__all__ = ["Module", "RemovableHandle", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Identity", "Linear", "ReLU", "GELU", "SiLU", "Sigmoid", "Tanh",
           "Softmax", "LogSoftmax", "LeakyReLU", "ELU", "Softplus", "Dropout", "Flatten",
           "Unflatten", "MSELoss", "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss",
           "BCELoss", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "BatchNorm1d",
           "BatchNorm2d", "LayerNorm", "Embedding"]
