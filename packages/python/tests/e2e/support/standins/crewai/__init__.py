"""Stand-in of CrewAI (tests only): see ../README.md."""
