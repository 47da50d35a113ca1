"""The test suite (a package, so ``tests.conftest`` never resolves to another distribution's top-level ``tests``)."""
