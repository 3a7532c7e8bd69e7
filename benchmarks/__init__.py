"""ember vs torch benchmarks: python benchmarks/run.py (see BENCHMARKS.md for the method)."""
