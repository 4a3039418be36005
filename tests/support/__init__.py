"""Helpers shared by the tests: independent referees and engines written from the books, the
schema validators and a server client, Hypothesis values for fuzzing, a headless browser.

Tests import them as `tests.support.<module>`; the tests folder is a package, so no test adds to
`sys.path` or loads a file by its path.
"""
