"""Triage: the checks (one module each, registered in checks.MODULES) and the worst-first ranking of (system, segment) pairs they feed."""
