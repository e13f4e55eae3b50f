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

# Layers over the composite functions of nn/_functional_composite.py.
from ember.nn.modules import pixelshuffle as _pix, distance as _dist, padding as _pad  # noqa: E402
from ember.nn.modules.activation import CELU, SELU, Hardshrink, Threshold, PReLU, RReLU  # noqa: E402,F401,E501
from ember.nn.modules.dropout import (  # noqa: E402,F401
    Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout)
from ember.nn.modules.pooling import MaxPool1d, AvgPool1d, AdaptiveAvgPool1d  # noqa: E402,F401
from ember.nn.modules.loss import (  # noqa: E402,F401
    CosineEmbeddingLoss, HingeEmbeddingLoss, MarginRankingLoss, KLDivLoss, PoissonNLLLoss,
    TripletMarginLoss)
from ember.nn.modules.normalization import GroupNorm, RMSNorm  # noqa: E402,F401
from ember.nn.modules.linear import Bilinear  # noqa: E402,F401
from ember.nn.modules.pixelshuffle import PixelShuffle, PixelUnshuffle, ChannelShuffle  # noqa: E402,F401,E501
from ember.nn.modules.distance import CosineSimilarity, PairwiseDistance  # noqa: E402,F401
from ember.nn.modules.padding import *  # noqa: E402,F401,F403

__all__ += ["CELU", "SELU", "Hardshrink", "Threshold", "PReLU", "RReLU", "Dropout1d", "Dropout2d",
            "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "MaxPool1d", "AvgPool1d",
            "AdaptiveAvgPool1d", "CosineEmbeddingLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
            "KLDivLoss", "PoissonNLLLoss", "TripletMarginLoss", "GroupNorm", "RMSNorm",
            "Bilinear", *_pix.__all__, *_dist.__all__, *_pad.__all__]

# ---- nn1: the rest of torch.nn's activations, containers and layers ---------------------------
from ember.nn.modules.activation import (  # noqa: E402,F401
    ReLU6, Hardtanh, Hardswish, Hardsigmoid, Mish, GLU, Softsign, Softshrink, Tanhshrink,
    LogSigmoid, Softmin, Softmax2d)
from ember.nn.modules.lazy import LazyLinear  # noqa: E402,F401

__all__ += ["ReLU6", "Hardtanh", "Hardswish", "Hardsigmoid", "Mish", "GLU", "Softsign",
            "Softshrink", "Tanhshrink", "LogSigmoid", "Softmin", "Softmax2d", "LazyLinear"]

# Normalisation, losses, EmbeddingBag (nn2's block).
from ember.nn.modules import (batchnorm as _bn, instancenorm as _inorm,  # noqa: E402
                              normalization as _norm, loss as _loss, adaptive as _adaptive,
                              sparse as _sparse)
from ember.nn.modules.batchnorm import *  # noqa: E402,F401,F403
from ember.nn.modules.instancenorm import *  # noqa: E402,F401,F403
from ember.nn.modules.normalization import *  # noqa: E402,F401,F403
from ember.nn.modules.loss import *  # noqa: E402,F401,F403
from ember.nn.modules.adaptive import *  # noqa: E402,F401,F403
from ember.nn.modules.sparse import *  # noqa: E402,F401,F403
__all__ += [n for n in (_bn.__all__ + _inorm.__all__ + _norm.__all__ + _loss.__all__
                        + _adaptive.__all__ + _sparse.__all__) if n not in __all__]
