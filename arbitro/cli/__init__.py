"""The `arbitro` command line: main.py parses and dispatches; each longer command has its module
(explore_cmd.py, findings_cmd.py, prove.py, trace.py)."""
