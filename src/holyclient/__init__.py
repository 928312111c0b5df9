"""holyclient: an OpenAI-compatible SDK for the HolySheep relay."""

from ._version import __version__

__all__ = ["__version__"]
