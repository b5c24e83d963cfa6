"""Validation layers: name formats, the building blocks' declarative rules, the controller's checks."""
