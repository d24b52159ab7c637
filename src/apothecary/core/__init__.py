"""The core: the game protocol, the registry, records, bots' protocol, errors."""
