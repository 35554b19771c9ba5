"""End-to-end tests against a real Hub (a package, so its conftest never shadows the parent one)."""
