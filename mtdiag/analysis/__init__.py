"""Analyses of a Report: significance, agreement with humans, human likeness, segment groups, error statistics."""
