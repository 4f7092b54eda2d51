"""firefight: a ranged-combat resolution service for virtual tabletops."""
