// Placeholder until the module lands (development skeleton).
