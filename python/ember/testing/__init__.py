"""ember.testing: torch.testing's assert_close and make_tensor."""
from ember.testing._comparison import assert_close
from ember.testing._creation import make_tensor

__all__ = ["assert_close", "make_tensor"]
