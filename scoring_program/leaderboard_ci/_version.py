"""The single source of the package version (read by setup.cfg and the signature)."""

__version__ = "0.1.0"
