"""ember.backends.mps: Apple's Metal backend, which ember does not have."""

__all__ = ["is_available", "is_built", "is_macos13_or_newer", "is_macos_or_newer"]


def is_available():
    """False: ember has no MPS backend (code that picks 'mps' when available goes on to
    'cuda' or 'cpu')."""
    return False


def is_built():
    """False: ember is not built with MPS."""
    return False


def is_macos_or_newer(major, minor):
    """False: no MPS backend, whatever the OS."""
    return False


def is_macos13_or_newer(minor=0):
    """False: no MPS backend, whatever the OS."""
    return False
