"""ember.cuda.streams: where torch keeps its stream and event classes
(``torch.cuda.streams.Stream``). The classes are the bound C++ ones."""
from ember.cuda import Event, ExternalStream, Stream, StreamContext

__all__ = ["Stream", "ExternalStream", "Event", "StreamContext"]
