// Placeholder until the executable lands (development skeleton).
print("switchboard")
