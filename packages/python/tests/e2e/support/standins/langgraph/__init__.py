"""Stand-in of LangGraph (tests only): see ../README.md."""
