"""ember.cuda.random: the CUDA default generators' seeds and states (torch.cuda.random).

The generators are host objects (csrc/tensor/generator.hpp): seeding them calls no
CUDA API, so these work before CUDA is initialised. States are 16-byte uint8 CPU
tensors (seed, offset).
"""
from ember import _C

_c = _C.cuda

manual_seed = _c.manual_seed
manual_seed_all = _c.manual_seed_all
seed = _c.seed
seed_all = _c.seed_all
initial_seed = _c.initial_seed
get_rng_state = _c.get_rng_state
set_rng_state = _c.set_rng_state


def get_rng_state_all():
    """The states of every GPU's default generator, as a list."""
    return [get_rng_state(i) for i in range(_c.device_count())]


def set_rng_state_all(new_states):
    """Sets the state of each GPU's default generator from a sequence of states."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


__all__ = ["manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all"]
