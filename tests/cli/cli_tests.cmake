# CLI tests of the core commands (families add tests/<family>/cli_tests.cmake).
