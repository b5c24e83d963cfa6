"""The subcommands, one module each, in one shape: ``HELP`` (the one-line help), ``add_options(parser)`` and
``run(args, out, err)`` (the exit code). A module imports only the standard library and ``cli.flags`` when
loaded, so ``cli.app`` imports them all at start-up; ``run`` imports the work (``cli.run_*``) when the command
runs. No command module imports another.
"""
