"""Shared pytest configuration: pytester runs the testing kit's plugin the way a user's suite would."""

pytest_plugins = ["pytester"]
