"""The foundation: the data model, tokens, and pure helpers every layer may use."""
