"""dslint: find, fix and prove PyTorch data-loading hazards."""

__version__ = "0.1.0"
