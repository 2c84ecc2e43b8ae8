"""The Raspberry Pi service: `controller run` and what it needs (the shell
around the core machines)."""
