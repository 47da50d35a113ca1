"""Scoring: an EvalSet and options to a Report (in slices, in parallel), saved runs, the report cache."""
