"""Validation layers: name formats, the building blocks' declarative rules, the controller's checks,
and whole compiled objects as the apiserver checks them (``objects``)."""
