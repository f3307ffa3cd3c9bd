"""torch's own OpInfo / ModuleInfo databases as the oracle of the facade (see README.md here)."""
