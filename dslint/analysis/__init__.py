"""Per-file analysis: Python source in, a picklable ModuleSummary out."""
