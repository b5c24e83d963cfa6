"""The subcommands, one module each: ``manifests`` (compile, validate, diff, migrate), ``place`` (place, explain),
``planning`` (capacity, simulate) and ``doctor``. No command module imports another.
"""
