"""firefight's wire vocabulary: msgspec Structs for every request, result, event and problem."""
